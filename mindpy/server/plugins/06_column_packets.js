'use strict'
// One map_chunk packet for every untouched column of the flat world. flying-squid builds and serializes the packet
// of each column for each player it sends it to: 1.5-2 ms of this process per column (mostly serializing its
// 24 sections of sky light, 50 kB), which was almost all the server's work of a join (144 columns a player at view
// distance 6). A column of flat_world.js that nothing has changed since it was generated is the same as any other
// such column but for its x and z, so its packet is serialized once and each send copies it with its own x and z.
// A column that has changed (flat_world.js clears `mindpyPristine` on any change) goes flying-squid's way.
// Config `columnCache: false` turns this off (benchmarks compare with it).

const TEMPLATE = Symbol('mindpy column packet')

module.exports.server = function (serv, settings) {
  const config = settings?.mindpy || {}
  // sent: columns sent from the template (tests read it)
  serv.mindpyColumnPackets = { enabled: config.columnCache !== false, template: null, sent: 0 }
}

// what flying-squid's sendChunk writes for 1.18+ (every version the embedded server supports)
function params (x, z, column) {
  const nbt = require('prismarine-nbt')
  return {
    x,
    z,
    heightmaps: nbt.comp({ MOTION_BLOCKING: nbt.longArray(new Array(36).fill([0, 0])) }),
    chunkData: column.dump(),
    blockEntities: [],
    trustEdges: true,
    suppressLightUpdates: true,
    ...column.dumpLight()
  }
}

function stamp (buffer, offset, x, z) {
  const copy = Buffer.from(buffer) // the compressor keeps what it is given until it has deflated it
  copy.writeInt32BE(x, offset)
  copy.writeInt32BE(z, offset + 4)
  return copy
}

// Built from the first untouched column sent, with the client's own serializer: x and z are the two 32-bit integers
// right after the packet id. Checked once against a packet serialized the usual way at another place; if they
// differ, the cache turns itself off.
function templateFor (state, create, column) {
  if (state.template || !state.enabled) return state.template
  const buffer = create({ name: 'map_chunk', params: params(0, 0, column) })
  const moved = create({ name: 'map_chunk', params: params(1, 0, column) })
  let first = 0
  while (first < buffer.length && buffer[first] === moved[first]) first++
  const offset = first - 3 // x's lowest byte is the first to differ
  const check = create({ name: 'map_chunk', params: params(-3, 7, column) })
  if (offset < 1 || moved.length !== buffer.length || !stamp(buffer, offset, -3, 7).equals(check)) {
    state.enabled = false
    console.error('[mindpy] column packet cache off: map_chunk does not start with x and z')
    return null
  }
  state.template = { buffer, offset }
  return state.template
}

module.exports.player = function (player, serv) {
  const state = serv.mindpyColumnPackets
  let sendChunk
  Object.defineProperty(player, 'sendChunk', { // assigned by flying-squid's world plugin, which runs after ours
    configurable: true,
    get: () => sendChunk,
    set: (original) => {
      sendChunk = (x, z, column) => {
        if (!state.enabled || !column || column.mindpyPristine !== true) return original(x, z, column)
        const serializer = player._client.serializer
        if (!serializer[TEMPLATE]) {
          const create = serializer.createPacketBuffer.bind(serializer)
          serializer[TEMPLATE] = create
          serializer.createPacketBuffer = (packet) => {
            const cached = packet.params && packet.params[TEMPLATE]
            return cached ? stamp(cached.buffer, cached.offset, packet.params.x, packet.params.z) : create(packet)
          }
        }
        const cached = templateFor(state, serializer[TEMPLATE], column)
        if (!cached) return original(x, z, column)
        state.sent++
        player._client.write('map_chunk', { x, z, [TEMPLATE]: cached })
        return Promise.resolve()
      }
    }
  })
}
