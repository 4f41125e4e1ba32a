'use strict'
// Levers and buttons, as far as their own block goes: using a lever flips its `powered` state; using a button
// powers it and it pops out again after 1 s (stone) or 1.5 s (wooden buttons), as in vanilla. No redstone: what
// they are connected to does not react.

const STONE_BUTTON_MS = 1000
const WOODEN_BUTTON_MS = 1500

module.exports.server = function (serv) {
  const registry = serv.registry
  const Block = require('prismarine-block')(registry)

  const withProps = (block, props) => Block.fromProperties(block.name, { ...block.getProperties(), ...props }, 0).stateId

  async function flipLever ({ block, player }) {
    const current = await player.world.getBlock(block.position)
    if (current.name !== 'lever') return false
    await serv.setBlock(player.world, block.position, withProps(current, { powered: !current.getProperties().powered }))
    return true // handled: nothing is placed against it
  }

  function pressButton (ms) {
    return async ({ block, player }) => {
      const current = await player.world.getBlock(block.position)
      if (current.name !== block.name) return false
      if (current.getProperties().powered) return true
      await serv.setBlock(player.world, block.position, withProps(current, { powered: true }))
      const world = player.world
      const position = block.position.clone()
      setTimeout(async () => {
        try {
          const now = await world.getBlock(position)
          if (now.name === block.name) await serv.setBlock(world, position, withProps(now, { powered: false }))
        } catch (err) {
          console.error('[mindpy] button release:', err)
        }
      }, ms).unref()
      return true
    }
  }

  serv.once('pluginsReady', () => {
    if (registry.blocksByName.lever) serv.onBlockInteraction('lever', flipLever)
    for (const block of registry.blocksArray) {
      if (!block.name.endsWith('_button')) continue
      const stone = block.name === 'stone_button' || block.name === 'polished_blackstone_button'
      serv.onBlockInteraction(block.name, pressButton(stone ? STONE_BUTTON_MS : WOODEN_BUTTON_MS))
    }
  })
}
