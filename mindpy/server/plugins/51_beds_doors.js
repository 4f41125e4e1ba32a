'use strict'
// Beds and doors are two blocks: placing the item places both halves with matching states (flying-squid
// places only one). Sleeping is not implemented: beds can be placed and stand in the world.

const { Vec3 } = require('vec3')

const FACING_VECTOR = { north: new Vec3(0, 0, -1), south: new Vec3(0, 0, 1), west: new Vec3(-1, 0, 0), east: new Vec3(1, 0, 0) }

module.exports.server = function (serv) {
  const registry = serv.registry
  const Block = require('prismarine-block')(registry)

  const stateOf = (name, properties) => {
    const base = Block.fromStateId(registry.blocksByName[name].defaultState, 0).getProperties()
    return Block.fromProperties(name, { ...base, ...properties }, 0).stateId
  }

  serv.once('pluginsReady', () => {
    for (const block of registry.blocksArray) {
      if (!registry.itemsByName[block.name]) continue
      if (block.name.endsWith('_door')) {
        serv.onItemPlace(block.name, ({ player, placedPosition, properties }) => {
          const facing = properties.facing
          const lower = stateOf(block.name, { facing, half: 'lower', open: false, hinge: 'left', powered: false })
          const upper = stateOf(block.name, { facing, half: 'upper', open: false, hinge: 'left', powered: false })
          setImmediate(() => player.setBlock(placedPosition.offset(0, 1, 0), upper))
          return { id: block.id, data: lower - block.minStateId }
        }, false)
      } else if (block.name.endsWith('_bed')) {
        serv.onItemPlace(block.name, ({ player, placedPosition, properties }) => {
          const facing = properties.facing
          const foot = stateOf(block.name, { facing, part: 'foot', occupied: false })
          const head = stateOf(block.name, { facing, part: 'head', occupied: false })
          setImmediate(() => player.setBlock(placedPosition.plus(FACING_VECTOR[facing]), head))
          return { id: block.id, data: foot - block.minStateId }
        }, false)
      }
    }
  })
}
