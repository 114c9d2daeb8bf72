'use strict';
// Node IDs: a number, or an array [ownerID, key, key, ...] (keys are strings or numbers);
// [ownerID] alone is the same ID as ownerID. A number ID is its own table key (no
// allocation on lookup); a keyed ID's key is its JSON text.

const NO_KEYS = Object.freeze([]);

/** The node table's key for a valid ID, or null: `parseID(id).key` without its allocations. */
function keyOf(id) {
  if (typeof id === 'number') return Number.isFinite(id) ? id : null;
  if (!Array.isArray(id) || id.length === 0) return null;
  const owner = id[0];
  if (typeof owner !== 'number' || !Number.isFinite(owner)) return null;
  for (let i = 1; i < id.length; i += 1) {
    const key = id[i];
    if (!(typeof key === 'string' || (typeof key === 'number' && Number.isFinite(key)))) return null;
  }
  return id.length === 1 ? owner : JSON.stringify(id);
}

/** `{ key, owner, keys }` for a valid ID, or null. */
function parseID(id) {
  const key = keyOf(id);
  if (key === null) return null;
  if (typeof key === 'number') return { key, owner: key, keys: NO_KEYS };
  return { key, owner: id[0], keys: id.slice(1) };
}

/** How IDs are written in messages and snapshots: `42`, `42/table/0`. */
function describeID(id) {
  if (Array.isArray(id)) return id.map((part) => String(part)).join('/');
  if (typeof id === 'number') return String(id);
  try {
    return JSON.stringify(id) || String(id);
  } catch (e) {
    return String(id);
  }
}

/** Whether the parsed ID being deregistered names the node with ID `id` itself. */
function names(removed, id) {
  if (typeof id === 'number') return removed.keys.length === 0 && removed.owner === id;
  if (id[0] !== removed.owner) return false;
  return keysStartWith(id, removed.keys);
}

/** Whether keyed ID `id` ([owner, key, ...]) has `prefix` as its first keys. */
function keysStartWith(id, prefix) {
  if (id.length - 1 < prefix.length) return false;
  for (let i = 0; i < prefix.length; i += 1) if (id[i + 1] !== prefix[i]) return false;
  return true;
}

module.exports = { NO_KEYS, keyOf, parseID, describeID, names, keysStartWith };
