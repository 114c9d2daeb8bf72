// The metas of the bridge's JavaScript half (module-bridge.js): each result crosses to the
// host with the number of its meta ({ task, path, event }), and each meta's fields cross
// once, when it is first numbered. Swift keeps the same list (ModuleBridge's metas) and both
// start over together (forget) when it grows long.
//
// The file evaluates to a function of the captured built-ins (built-ins.js) that returns
// makeMetas(), which returns { id, of, takeNew, forget }:
// - id(meta): the number of `meta` (-1 for a meta that is no object), numbering it if new;
// - of(id): [task, path, event] of number `id`, or null (a rare path: results that failed);
// - takeNew(): the metas numbered since the last call, [task, path, event, ...] as JSON
//   text, or '' for none;
// - forget(): starts the numbering over.
(function (builtIns) {
  'use strict';
  const { stringify, StringType, bareArray } = builtIns;

  return function makeMetas() {
    // Meta IDs by path, then task, then event. Results in a row mostly share a few metas
    // (cells of a list share one path), so the last RECENT metas ([task, path, event, id, ...])
    // are checked first and the last path's map is kept at hand: once paths are many, each
    // lookup in the map of paths is a cache miss.
    let metaIDs = new Map();
    let newMetas = bareArray();
    let metaCount = 0;
    const RECENT = 4;
    let recentMetas = [];
    let recentNext = 0;
    let lastPath = null;
    let lastPathMetas = null;

    function id(meta) {
      if (meta === null || typeof meta !== 'object') return -1;
      const task = StringType(meta.task), path = StringType(meta.path), event = StringType(meta.event);
      for (let slot = 0; slot < recentMetas.length; slot += 4) {
        if (recentMetas[slot] === task && recentMetas[slot + 1] === path && recentMetas[slot + 2] === event) {
          return recentMetas[slot + 3];
        }
      }
      let byTask = lastPathMetas;
      if (path !== lastPath) {
        byTask = metaIDs.get(path);
        if (byTask === undefined) { byTask = new Map(); metaIDs.set(path, byTask); }
        lastPath = path;
        lastPathMetas = byTask;
      }
      let byEvent = byTask.get(task);
      if (byEvent === undefined) { byEvent = new Map(); byTask.set(task, byEvent); }
      let found = byEvent.get(event);
      if (found === undefined) {
        found = metaCount++;
        byEvent.set(event, found);
        const at = newMetas.length;
        newMetas[at] = task;
        newMetas[at + 1] = path;
        newMetas[at + 2] = event;
      }
      recentMetas[recentNext] = task;
      recentMetas[recentNext + 1] = path;
      recentMetas[recentNext + 2] = event;
      recentMetas[recentNext + 3] = found;
      recentNext = (recentNext + 4) % (RECENT * 4);
      return found;
    }

    function of(number) {
      for (const [path, byTask] of metaIDs) {
        for (const [task, byEvent] of byTask) {
          for (const [event, found] of byEvent) if (found === number) return [task, path, event];
        }
      }
      return null;
    }

    function takeNew() {
      if (newMetas.length === 0) return '';
      const text = stringify(newMetas);
      newMetas = bareArray();
      return text;
    }

    function forget() {
      metaIDs = new Map();
      metaCount = 0;
      newMetas = bareArray();
      recentMetas = [];
      recentNext = 0;
      lastPath = null;
      lastPathMetas = null;
    }

    return { id: id, of: of, takeNew: takeNew, forget: forget };
  };
})
