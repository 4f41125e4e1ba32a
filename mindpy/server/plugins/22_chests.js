'use strict'
// Chests, trapped chests and barrels: 27 slots that keep what is put in them while the server runs
// (flying-squid's own chest window holds nothing and, at 1.21.1, fails to encode and drops the player),
// and ender chests: 27 slots of each player's own, the same from every ender chest.
// Several players can look into the same chest; each sees the others' changes. Adjacent chests stay
// single chests (no large chest). Set-up fills one with `/data merge block` (plugin 12_block_containers).

const CHESTS = ['chest', 'trapped_chest', 'barrel']
const TITLES = { chest: 'Chest', trapped_chest: 'Chest', barrel: 'Barrel', ender_chest: 'Ender Chest' }

module.exports.server = function (serv) {
  const registry = serv.registry
  const containers = serv.mindpyBlockContainers
  // An ender chest shows each player its own 27 slots, the same from every ender chest (by player uuid).
  const enderChests = new Map()
  const enderChestOf = player => enderChests.get(player.uuid) ||
    enderChests.set(player.uuid, { kind: 'ender_chest', slots: new Array(27).fill(null), viewers: new Set() }).get(player.uuid)

  function openChest (player, block) {
    const container = block.name === 'ender_chest'
      ? enderChestOf(player)
      : containers.containerAt(player.world, block.position, block.name)
    player.mindpyOpenWindow({
      type: 'minecraft:generic_9x3',
      title: TITLES[block.name],
      size: 27,
      block: { position: block.position, name: block.name },
      get: i => container.slots[i],
      set: (i, item) => { container.slots[i] = item },
      isResult: () => false,
      mayPlace: () => true,
      quickMoveInto: () => [[0, 27]],
      after: () => containers.changed(container, player),
      onOpen: () => container.viewers.add(player),
      onClose: () => container.viewers.delete(player)
    })
  }

  for (const name of CHESTS) containers.define(name, 27)

  serv.once('pluginsReady', () => {
    for (const name of CHESTS.concat(['ender_chest'])) {
      if (!registry.blocksByName[name]) continue
      serv.onBlockInteraction(name, ({ block, player }) => {
        if (player.crouching) return false
        openChest(player, block)
        return true
      })
    }
  })
}
