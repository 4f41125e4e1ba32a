'use strict'
// Small helpers for hooking into flying-squid, shared by the server plugins.

// `object[name] = f` stores wrap(f) instead, however often it is assigned (flying-squid assigns some functions
// again for every player, or in plugins that load after ours); a function already there is wrapped at once.
function wrapEveryAssignment (object, name, wrap) {
  let wrapped = typeof object[name] === 'function' ? wrap(object[name]) : object[name]
  Object.defineProperty(object, name, {
    configurable: true,
    get: () => wrapped,
    set: (original) => { wrapped = wrap(original) }
  })
}

// `object[name]` stays `value`: later assignments (flying-squid's own plugins, which load after ours) are ignored.
function keepOwn (object, name, value) {
  Object.defineProperty(object, name, { configurable: true, get: () => value, set: () => {} })
}

// Packets from the client that a check refuses reach no listener, flying-squid's or ours, whenever it was added.
// `checks`: {packet name: data => whether to let it through}.
function refusePackets (client, checks) {
  const emit = client.emit
  client.emit = function (event, data, ...rest) {
    const check = checks[event]
    if (check && data && !check(data)) return false
    return emit.call(this, event, data, ...rest)
  }
}

module.exports = { wrapEveryAssignment, keepOwn, refusePackets }
