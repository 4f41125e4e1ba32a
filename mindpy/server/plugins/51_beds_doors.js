'use strict'
// Beds and doors are two blocks: placing the item places both halves with matching states (flying-squid
// places only the one that was clicked), only where both fit; breaking one half removes the other.
// Doors, trapdoors and fence gates open and close when used (iron ones only by redstone, as in vanilla).
// Sleeping in beds is in 52_sleeping.js.

const { Vec3 } = require('vec3')

const FACING_VECTOR = { north: new Vec3(0, 0, -1), south: new Vec3(0, 0, 1), west: new Vec3(-1, 0, 0), east: new Vec3(1, 0, 0) }

module.exports.server = function (serv) {
  const registry = serv.registry
  const Block = require('prismarine-block')(registry)
  const blocks = registry.blocks

  const stateOf = (name, properties) => {
    const base = Block.fromStateId(registry.blocksByName[name].defaultState, 0).getProperties()
    return Block.fromProperties(name, { ...base, ...properties }, 0).stateId
  }
  const isFree = async (world, pos) => {
    const block = blocks[await world.getBlockType(pos)]
    return block && (block.name === 'air' || block.name === 'cave_air' || block.name === 'water' || block.boundingBox === 'empty')
  }
  const isDoor = name => name.endsWith('_door')
  const isBed = name => name.endsWith('_bed')
  const canOpenByHand = name => !name.startsWith('iron_') && (isDoor(name) || name.endsWith('_trapdoor') || name.endsWith('_fence_gate'))

  // The other half of a door or bed block, or null.
  function otherHalf (block, position) {
    const props = block.getProperties()
    if (isDoor(block.name)) return position.offset(0, props.half === 'lower' ? 1 : -1, 0)
    if (isBed(block.name)) {
      const toHead = FACING_VECTOR[props.facing]
      return props.part === 'foot' ? position.plus(toHead) : position.minus(toHead)
    }
    return null
  }

  function placeDoor (block) {
    return async ({ player, placedPosition, properties }) => {
      const above = placedPosition.offset(0, 1, 0)
      if (!(await isFree(player.world, above))) return {} // no room for the upper half: nothing placed
      const common = { facing: properties.facing, open: false, hinge: 'left', powered: false }
      const lower = stateOf(block.name, { ...common, half: 'lower' })
      setImmediate(() => player.setBlock(above, stateOf(block.name, { ...common, half: 'upper' })))
      return { id: block.id, data: lower - block.minStateId }
    }
  }

  function placeBed (block) {
    return async ({ player, placedPosition, properties }) => {
      const facing = properties.facing
      const headPosition = placedPosition.plus(FACING_VECTOR[facing])
      if (!(await isFree(player.world, headPosition))) return {} // no room for the head: nothing placed
      const foot = stateOf(block.name, { facing, part: 'foot', occupied: false })
      setImmediate(() => player.setBlock(headPosition, stateOf(block.name, { facing, part: 'head', occupied: false })))
      return { id: block.id, data: foot - block.minStateId }
    }
  }

  // Toggle `open` on the block (and on the other half of a door).
  async function toggle ({ block, player }) {
    if (!canOpenByHand(block.name)) return false
    const open = !block.getProperties().open
    const positions = [block.position]
    if (isDoor(block.name)) positions.push(otherHalf(block, block.position))
    for (const pos of positions) {
      const current = await player.world.getBlock(pos)
      if (current.name !== block.name) continue
      await serv.setBlock(player.world, pos, stateOf(block.name, { ...current.getProperties(), open }))
    }
    return true // handled: no block is placed against it
  }

  serv.once('pluginsReady', () => {
    for (const block of registry.blocksArray) {
      if (isDoor(block.name) && registry.itemsByName[block.name]) serv.onItemPlace(block.name, placeDoor(block), false)
      else if (isBed(block.name) && registry.itemsByName[block.name]) serv.onItemPlace(block.name, placeBed(block), false)
      if (canOpenByHand(block.name)) serv.onBlockInteraction(block.name, toggle)
    }
  })

  serv.on('newPlayer', (player) => {
    player.on('dug', async ({ block, position }) => {
      if (!block || !(isDoor(block.name) || isBed(block.name))) return
      const other = otherHalf(block, position)
      if ((await player.world.getBlock(other)).name === block.name) await serv.setBlock(player.world, other, 0)
    })
  })
}
