'use strict'
// Small helpers for hooking into flying-squid, shared by the server plugins.

// `object[name] = f` stores wrap(f) instead, however often it is assigned (flying-squid assigns some functions
// again for every player, or in plugins that load after ours).
function wrapEveryAssignment (object, name, wrap) {
  let wrapped
  Object.defineProperty(object, name, {
    configurable: true,
    get: () => wrapped,
    set: (original) => { wrapped = wrap(original) }
  })
}

// The field names of a clientbound play packet in this version's protocol ([] if it has no such packet).
function packetFields (registry, name) {
  const type = registry.protocol?.play?.toClient?.types?.['packet_' + name]
  return Array.isArray(type) && type[0] === 'container' ? type[1].map(field => field.name) : []
}

// The protocol type of one field of a clientbound play packet (undefined if there is no such field).
function packetFieldType (registry, name, field) {
  const type = registry.protocol?.play?.toClient?.types?.['packet_' + name]
  return Array.isArray(type) && type[0] === 'container' ? type[1].find(f => f.name === field)?.type : undefined
}

function hasPacket (registry, name) {
  return packetFields(registry, name).length > 0
}

module.exports = { wrapEveryAssignment, packetFields, packetFieldType, hasPacket }
