'use strict';
// Over 400 lines on purpose: one closure holds the page's state for all its views, and `anna
// report` inlines this one file into an offline HTML file (no module loader in either page).
// The inspector page: live (the JSON API and its event stream) or frozen (a report file with
// the same data inlined). Every name, value and message goes into the page as text
// (textContent, never markup), so nothing a stream or a task produces can run as code.

(function () {
  const RESULT_LIMIT = 500;
  const reportData = readReportData();
  const live = reportData === null;
  const token = new URLSearchParams(window.location.search).get('token');

  const state = {
    results: [], // newest first
    errors: [], // newest first
    tree: null,
    namespaces: {},
    selected: null, // node id
    collapsed: new Set(),
    rows: new Map(), // node id -> its row element
    playback: null,
    paused: false,
    debug: false,
    treeTimer: null,
    tasksTimer: null,
  };

  function $(id) { return document.getElementById(id); }

  /** `1 result`, `2 results`. */
  function counted(count, noun) { return count + ' ' + noun + (count === 1 ? '' : 's'); }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function compact(value) {
    try {
      return JSON.stringify(value);
    } catch (error) {
      return String(value);
    }
  }

  /** `hh:mm:ss.mmm` (UTC) of a time in ms since the epoch, or the value as it is. */
  function clock(time) {
    const date = new Date(time);
    return Number.isNaN(date.getTime()) ? String(time) : date.toISOString().slice(11, 23);
  }

  function readReportData() {
    const holder = document.getElementById('anna-report-data');
    if (holder === null) return null;
    return JSON.parse(holder.textContent);
  }

  function notice(text) {
    const box = $('notice');
    box.textContent = text;
    box.hidden = text === '';
  }

  // MARK: - The API

  function apiURL(path) {
    return path; // relative to the page
  }

  async function api(path, body) {
    const options = { headers: {} };
    if (token) options.headers.Authorization = 'Bearer ' + token;
    if (body !== undefined) {
      options.method = 'POST';
      options.headers['Content-Type'] = 'application/json';
      options.body = JSON.stringify(body);
    }
    const response = await fetch(apiURL(path), options);
    const text = await response.text();
    let value = null;
    try {
      value = JSON.parse(text);
    } catch (error) {
      value = { text };
    }
    if (!response.ok) throw new Error((value && value.error) || ('HTTP ' + response.status));
    return value;
  }

  async function write(path, body) {
    try {
      const answer = await api(path, body === undefined ? {} : body);
      showState(answer);
      notice('');
      scheduleTree();
      scheduleTasks();
    } catch (error) {
      notice(path + ': ' + error.message);
    }
  }

  // MARK: - State and controls

  function showState(value) {
    if (!value || value.error) return;
    state.paused = value.paused === true;
    state.debug = value.debug === true;
    state.playback = value.playback || null;
    $('debug').checked = state.debug;
    const badge = $('position');
    if (state.playback) {
      badge.textContent = 'line ' + state.playback.line + ' of ' + state.playback.lineCount + (state.paused ? ' · paused' : '');
    } else {
      badge.textContent = state.paused ? 'paused' : 'running';
    }
    badge.className = 'badge' + (state.paused ? ' paused' : '');
    $('playback-controls').hidden = state.playback === null;
    $('play').disabled = !state.paused;
    $('pause').disabled = state.paused;
  }

  function wireControls() {
    if (!live) {
      document.body.classList.add('report');
      for (const id of ['play', 'pause', 'step', 'jump', 'reload', 'debug', 'jump-line']) $(id).disabled = true;
      return;
    }
    $('play').addEventListener('click', () => write('api/resume'));
    $('pause').addEventListener('click', () => write('api/pause'));
    $('step').addEventListener('click', () => write('api/step'));
    $('jump').addEventListener('click', () => write('api/jump', { line: Number($('jump-line').value) }));
    $('reload').addEventListener('click', () => write('api/reload'));
    $('debug').addEventListener('change', (event) => write('api/debug', { on: event.target.checked }));
    if (token) {
      for (const id of ['download-markup', 'download-json', 'download-dot']) {
        const link = $(id);
        link.href = link.getAttribute('href') + '&token=' + encodeURIComponent(token);
      }
    }
  }

  // MARK: - The tree

  function scheduleTree() {
    if (!live || state.treeTimer !== null) return;
    state.treeTimer = setTimeout(async () => {
      state.treeTimer = null;
      try {
        const [tree, namespaces] = await Promise.all([api('api/tree'), api('api/namespaces')]);
        state.namespaces = namespaces;
        showTree(tree);
      } catch (error) {
        notice('tree: ' + error.message);
      }
    }, 150);
  }

  function showTree(snapshot) {
    state.tree = snapshot && snapshot.root ? snapshot.root : null;
    state.rows = new Map();
    const host = $('tree');
    clear(host);
    if (state.tree === null) {
      host.appendChild(element('p', 'empty', 'no node registered yet'));
      return;
    }
    const list = element('ul', 'tree');
    // A walk with a stack: a tree may be deeper than the page's call stack.
    const work = [{ node: state.tree, into: list, path: '' }];
    while (work.length > 0) {
      const { node, into, path } = work.pop();
      const nodePath = node === state.tree ? '' : path + '/' + node.name;
      const item = element('li');
      item.setAttribute('role', 'treeitem');
      const row = element('div', 'tree-row');
      row.dataset.id = node.id;
      const children = node.children || [];
      const toggle = element('span', 'toggle', children.length > 0 ? (state.collapsed.has(node.id) ? '▸' : '▾') : '');
      row.appendChild(toggle);
      row.appendChild(element('span', 'node-name', node.name));
      if (node.index !== null && node.index !== undefined) row.appendChild(element('span', 'node-index', '[' + node.index + ']'));
      row.appendChild(element('span', 'node-id', '#' + node.id));
      if (node.match && node.match.tasks.length > 0) {
        row.appendChild(element('span', 'node-tasks', node.match.tasks.length + (node.match.tasks.length === 1 ? ' task' : ' tasks')));
      }
      if (state.selected === node.id) row.classList.add('selected');
      row.addEventListener('click', (event) => {
        if (event.target === toggle && children.length > 0) {
          if (state.collapsed.has(node.id)) state.collapsed.delete(node.id);
          else state.collapsed.add(node.id);
          item.classList.toggle('collapsed');
          toggle.textContent = item.classList.contains('collapsed') ? '▸' : '▾';
          return;
        }
        select(node.id);
      });
      row.title = nodePath === '' ? '(the root)' : nodePath;
      node._path = nodePath;
      item.appendChild(row);
      if (state.collapsed.has(node.id)) item.classList.add('collapsed');
      state.rows.set(String(node.id), row);
      into.appendChild(item);
      if (children.length > 0) {
        const sub = element('ul');
        item.appendChild(sub);
        for (let at = children.length - 1; at >= 0; at -= 1) work.push({ node: children[at], into: sub, path: nodePath });
      }
    }
    host.appendChild(list);
    if (state.selected !== null) showNode(findNode(state.selected));
  }

  function findNode(id) {
    if (state.tree === null) return null;
    const work = [state.tree];
    while (work.length > 0) {
      const node = work.pop();
      if (String(node.id) === String(id)) return node;
      for (const child of node.children || []) work.push(child);
    }
    return null;
  }

  function select(id) {
    state.selected = id;
    for (const row of state.rows.values()) row.classList.toggle('selected', row.dataset.id === String(id));
    showNode(findNode(id));
  }

  function showNode(node) {
    const panel = $('node-details');
    panel.hidden = node === null;
    if (node === null) return;
    const fields = $('node-fields');
    clear(fields);
    const namespace = state.namespaces[node.id];
    const rows = [
      ['name', node.name], ['index', node.index === null || node.index === undefined ? '—' : node.index],
      ['namespace', namespace === undefined || namespace === null ? '—' : namespace], ['path', node._path === '' ? '(the root)' : node._path],
      ['id', node.id], ['tasks', node.match ? node.match.tasks.map((task) => task.path + ' (' + task.file + ')').join(', ') : '—'],
    ];
    for (const [name, value] of rows) {
      fields.appendChild(element('dt', null, name));
      fields.appendChild(element('dd', null, value));
    }
    const values = new Map();
    for (const [key, value] of Object.entries(node.attributes || {})) values.set(key, value);
    for (const event of node.events || []) {
      if (event.name === 'ana-updated' && event.properties && typeof event.properties['key-path'] === 'string') {
        values.set(event.properties['key-path'], event.properties.value); // events come oldest first: the last wins
      }
    }
    const valueBody = $('node-values').tBodies[0];
    clear(valueBody);
    for (const [key, value] of values) {
      const row = element('tr');
      row.appendChild(element('td', null, key));
      row.appendChild(element('td', 'value', compact(value)));
      valueBody.appendChild(row);
    }
    const eventBody = $('node-events').tBodies[0];
    clear(eventBody);
    for (const event of node.events || []) {
      const row = element('tr');
      row.appendChild(element('td', null, clock(event.time)));
      row.appendChild(element('td', null, event.name));
      row.appendChild(element('td', 'props', compact(event.properties)));
      eventBody.appendChild(row);
    }
  }

  function flash(operations) {
    let changed = false;
    for (const operation of operations) {
      changed = true;
      if (operation.kind !== 'event') continue;
      const row = state.rows.get(String(operation.node));
      if (row === undefined) continue;
      row.classList.remove('flash');
      void row.offsetWidth; // restarts the animation
      row.classList.add('flash');
    }
    if (changed) scheduleTree();
  }

  // MARK: - Results

  function addResults(results) {
    // `results` come oldest first; the list is newest first.
    for (const result of results) state.results.unshift(result);
    if (state.results.length > RESULT_LIMIT) state.results.length = RESULT_LIMIT;
    showResults();
  }

  function filteredResults() {
    const filter = $('result-filter').value.trim();
    if (filter === '') return state.results;
    return state.results.filter((result) => (result.task || '').includes(filter) || (result.path || '').includes(filter));
  }

  function showResults() {
    const shown = filteredResults();
    $('result-count').textContent = shown.length === state.results.length
      ? '(' + state.results.length + ')' : '(' + shown.length + ' of ' + state.results.length + ')';
    const body = $('results').tBodies[0];
    clear(body);
    for (const result of shown) {
      const row = element('tr');
      row.appendChild(element('td', null, result.seq));
      row.appendChild(element('td', null, result.line === undefined ? '' : result.line));
      row.appendChild(element('td', null, result.task === undefined ? '' : result.task));
      row.appendChild(element('td', null, result.path === undefined ? '' : result.path));
      row.appendChild(element('td', 'value', compact(result.value)));
      body.appendChild(row);
    }
  }

  async function copyResults() {
    const text = JSON.stringify(filteredResults(), null, 2);
    const area = $('copy-area');
    area.value = text;
    try {
      await navigator.clipboard.writeText(text);
      area.hidden = true;
      notice('copied ' + counted(filteredResults().length, 'result') + ' as JSON');
    } catch (error) {
      // Without clipboard access (a file opened from disk, a browser that refuses): select it.
      area.hidden = false;
      area.select();
      notice('the results are selected below: copy them with Ctrl-C');
    }
  }

  // MARK: - Errors

  function addErrors(errors) {
    for (const error of errors) state.errors.unshift(error);
    showErrors();
  }

  function showErrors() {
    $('error-count').textContent = '(' + state.errors.length + ')';
    const list = $('errors');
    clear(list);
    for (const error of state.errors) {
      const item = element('li', 'level-' + error.level);
      const head = element('div');
      if (error.line !== undefined) head.appendChild(element('span', 'location', 'line ' + error.line + ' · '));
      if (error.location !== undefined) head.appendChild(element('span', 'location', error.location + ' '));
      item.appendChild(head);
      item.appendChild(element('div', 'message', error.message));
      if (error.stack) item.appendChild(element('pre', null, error.stack));
      list.appendChild(item);
    }
  }

  // MARK: - Tasks

  function scheduleTasks() {
    if (!live || state.tasksTimer !== null) return;
    state.tasksTimer = setTimeout(async () => {
      state.tasksTimer = null;
      try {
        showTasks(await api('api/tasks'));
      } catch (error) {
        notice('tasks: ' + error.message);
      }
    }, 400);
  }

  function relative(file, folder) {
    return folder && file.startsWith(folder + '/') ? file.slice(folder.length + 1) : file;
  }

  function showTasks(value) {
    const coverage = value.coverage;
    const disabled = new Set(value.disabled || []);
    const host = $('tasks');
    clear(host);
    for (const file of coverage.files) {
      const box = element('div', 'file');
      const head = element('div', 'file-head');
      head.appendChild(element('span', 'file-name', relative(file.file, coverage.taskFolder)));
      const off = disabled.has(file.file);
      head.appendChild(element('span', 'status-' + (off ? 'disabled' : file.status), off ? 'disabled' : file.status));
      if (file.error) head.appendChild(element('span', 'status-failed', file.error));
      if (live && file.status === 'loaded') {
        const button = element('button', null, off ? 'Enable' : 'Disable');
        button.type = 'button';
        button.addEventListener('click', () => write(off ? 'api/tasks/enable' : 'api/tasks/disable', { file: file.file }));
        head.appendChild(button);
      }
      box.appendChild(head);
      const table = element('table');
      const headRow = element('tr');
      for (const name of ['line', 'pattern', 'matches', 'failures']) headRow.appendChild(element('th', null, name));
      table.appendChild(headRow);
      for (const task of coverage.tasks) {
        if (!task.location || task.location.file !== file.file) continue;
        const row = element('tr');
        row.appendChild(element('td', null, (task.location.line || '?') + (task.location.column ? ':' + task.location.column : '')));
        row.appendChild(element('td', null, task.task));
        row.appendChild(element('td', task.matches === 0 ? 'never' : null, task.matches === 0 ? '0 (never fired)' : task.matches));
        row.appendChild(element('td', task.failures > 0 ? 'failures' : null, task.failures));
        table.appendChild(row);
      }
      box.appendChild(table);
      host.appendChild(box);
    }
    const body = $('namespaces').tBodies[0];
    clear(body);
    for (const entry of coverage.namespaces) {
      const row = element('tr');
      row.appendChild(element('td', null, entry.namespace));
      row.appendChild(element('td', entry.hasTaskFile ? null : 'status-missing',
        relative(entry.file, coverage.taskFolder) + (entry.hasTaskFile ? '' : ' (missing)')));
      const cell = element('td');
      if (live && entry.hasTaskFile) {
        const off = disabled.has(entry.file);
        const button = element('button', null, off ? 'Enable' : 'Disable');
        button.type = 'button';
        button.dataset.namespace = entry.namespace;
        button.addEventListener('click', () => write(off ? 'api/tasks/enable' : 'api/tasks/disable', { namespace: entry.namespace }));
        cell.appendChild(button);
      }
      row.appendChild(cell);
      body.appendChild(row);
    }
  }

  // MARK: - Figures and timeline

  function showStats(stats) {
    const list = $('stats');
    clear(list);
    const rows = [
      ['events/s', stats.eventsPerSecond], ['results/s', stats.resultsPerSecond],
      ['events', stats.events], ['results', stats.results], ['errors', stats.errors], ['queue depth', stats.queueDepth],
      ['record→delegate p50', stats.latencyP50Ms === undefined ? '—' : stats.latencyP50Ms + ' ms'],
      ['record→delegate p99', stats.latencyP99Ms === undefined ? '—' : stats.latencyP99Ms + ' ms'],
      ['JavaScript heap', stats.heapBytes === undefined ? (stats.heapError || '—') : (stats.heapBytes / 1048576).toFixed(1) + ' MB'],
    ];
    if (stats.outbox) for (const [name, count] of Object.entries(stats.outbox)) rows.push(['outbox ' + name, count]);
    for (const [name, value] of rows) {
      list.appendChild(element('dt', null, name));
      list.appendChild(element('dd', null, value));
    }
  }

  function showTimeline(timeline) {
    $('timeline-panel').hidden = false;
    const host = $('timeline');
    clear(host);
    const buckets = timeline.buckets;
    let most = 1;
    for (const bucket of buckets) most = Math.max(most, bucket[1] + bucket[2] + bucket[3]);
    for (const bucket of buckets) {
      const bar = element('div', 'bar');
      const unit = timeline.unit === 'line' ? 'lines ' : '';
      bar.title = unit + bucket[0] + ': ' + counted(bucket[1], 'event') + ', ' + counted(bucket[2], 'result') + ', '
        + counted(bucket[3], 'error');
      const kinds = [['events', bucket[1]], ['results', bucket[2]], ['errors', bucket[3]]];
      for (const [kind, count] of kinds) {
        const part = element('span', kind);
        part.style.height = (100 * count / most) + 'px';
        bar.appendChild(part);
      }
      host.appendChild(bar);
    }
    $('timeline-unit').textContent = timeline.unit === 'line'
      ? '(' + timeline.width + ' line' + (timeline.width === 1 ? '' : 's') + ' per bar)' : '(' + timeline.width / 1000 + ' s per bar)';
  }

  /// Screenshots of the session under the timeline, each at the line of the event it shows;
  /// the bar holding that line is marked and, clicked, shows its pictures.
  function showScreens(screens, timeline) {
    const host = $('screens');
    clear(host);
    if (!screens || !screens.shots.length) return;
    host.hidden = false;
    $('screen-key').hidden = false;
    const bars = $('timeline').children;
    const starts = timeline.buckets.map((bucket) => bucket[0]);
    for (const shot of screens.shots) {
      const figure = element('figure');
      figure.dataset.line = shot.line;
      const image = element('img');
      image.src = screens.pictures[shot.file];
      image.alt = (shot.name || 'node ' + shot.node) + ' appeared (line ' + shot.line + ')';
      image.width = shot.width;
      image.height = shot.height;
      image.addEventListener('click', () => figure.classList.toggle('large'));
      figure.appendChild(image);
      figure.appendChild(element('figcaption', null, 'line ' + shot.line + ' · ' + (shot.name || 'node ' + shot.node) + ' appeared'));
      host.appendChild(figure);
      // The last bucket starting at or before the line.
      let bucket = -1;
      for (let i = 0; i < starts.length && starts[i] <= shot.line; i++) bucket = i;
      const bar = bars[bucket];
      if (!bar) continue;
      bar.classList.add('screen');
      bar.title += '\nscreenshot: ' + image.alt;
      if (!bar.dataset.screen) {
        bar.dataset.screen = shot.line;
        bar.addEventListener('click', () => {
          for (const each of host.children) each.classList.toggle('chosen', each.dataset.line === bar.dataset.screen);
          figure.scrollIntoView({ block: 'nearest', inline: 'center' });
        });
      }
    }
  }

  // MARK: - Live

  function connect() {
    const source = new EventSource('api/events' + (token ? '?token=' + encodeURIComponent(token) : ''));
    const badge = $('connection');
    source.addEventListener('open', () => {
      badge.textContent = 'live';
      badge.className = 'badge live';
    });
    source.addEventListener('error', () => {
      badge.textContent = 'disconnected (retrying)';
      badge.className = 'badge down';
    });
    source.addEventListener('results', (event) => addResults(JSON.parse(event.data)));
    source.addEventListener('errors', (event) => addErrors(JSON.parse(event.data)));
    source.addEventListener('operations', (event) => flash(JSON.parse(event.data)));
    source.addEventListener('stats', (event) => {
      showStats(JSON.parse(event.data));
      scheduleTasks();
    });
    source.addEventListener('state', (event) => showState(JSON.parse(event.data)));
    source.addEventListener('reset', () => {
      state.results = [];
      state.errors = [];
      showResults();
      showErrors();
      scheduleTree();
      scheduleTasks();
    });
  }

  async function startLive() {
    try {
      showState(await api('api/state'));
    } catch (error) {
      notice('cannot reach the inspector: ' + error.message);
    }
    scheduleTree();
    scheduleTasks();
    connect();
  }

  function startReport(data) {
    document.querySelector('header h1').textContent = 'Anna session report';
    $('connection').textContent = 'report: ' + data.source + ' · written ' + data.written;
    showState(data.state);
    state.namespaces = data.namespaces || {};
    showTree(data.tree);
    addResults(data.results.slice().reverse());
    addErrors(data.errors.slice().reverse());
    showTasks(data.tasks);
    showStats(data.stats);
    showTimeline(data.timeline);
    showScreens(data.screens, data.timeline);
    if (data.trace) {
      $('trace-panel').hidden = false;
      $('trace').textContent = data.trace;
    }
    const downloads = [['download-markup', data.markup, 'text/plain', 'snapshot.xml'],
      ['download-json', JSON.stringify(data.tree), 'application/json', 'snapshot.json'], ['download-dot', data.dot, 'text/vnd.graphviz', 'snapshot.dot']];
    for (const [id, text, type, name] of downloads) {
      const link = $(id);
      link.href = URL.createObjectURL(new Blob([text], { type }));
      link.download = name;
    }
  }

  $('result-filter').addEventListener('input', showResults);
  $('copy-results').addEventListener('click', copyResults);
  $('expand-all').addEventListener('click', () => {
    state.collapsed.clear();
    showTree(state.tree === null ? null : { root: state.tree });
  });
  $('collapse-all').addEventListener('click', () => {
    if (state.tree === null) return;
    for (const child of state.tree.children || []) state.collapsed.add(child.id);
    showTree({ root: state.tree });
  });
  wireControls();
  if (live) startLive();
  else startReport(reportData);
})();
