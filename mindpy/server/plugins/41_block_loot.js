'use strict'
// What a dug block drops. flying-squid drops every entry of the loot table every time, ignoring chances,
// counts, crop age and whether the right tool was used. Here drops follow the crop's age (wheat and seeds
// only when grown), the chance and count of each entry, and the tool (stone dug by hand drops nothing).

const { Vec3 } = require('vec3')

// Vanilla crop harvests, by age (minecraft-data's tables are simplified for these).
const CROPS = {
  wheat: { ripe: 7, grown: [['wheat', 1, 1], ['wheat_seeds', 1, 4]], young: [['wheat_seeds', 1, 1]] },
  beetroots: { ripe: 3, grown: [['beetroot', 1, 1], ['beetroot_seeds', 1, 4]], young: [['beetroot_seeds', 1, 1]] },
  carrots: { ripe: 7, grown: [['carrot', 2, 5]], young: [['carrot', 1, 1]] },
  potatoes: { ripe: 7, grown: [['potato', 2, 5]], young: [['potato', 1, 1]] }
}
const LEAF_CHANCES = { sapling: 0.05, stick: 0.02, apple: 0.005 }

module.exports.player = function (player, serv) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)

  function roll ([name, min, max]) {
    const item = registry.itemsByName[name]
    const count = min + Math.floor(Math.random() * (max - min + 1))
    return item && count > 0 ? new Item(item.id, count) : null
  }

  function dropsFor (block, heldItem) {
    const crop = CROPS[block.name]
    if (crop) {
      const age = Number(block.getProperties().age)
      return (age >= crop.ripe ? crop.grown : crop.young).map(roll).filter(Boolean)
    }
    const harvestTools = registry.blocks[block.type]?.harvestTools
    if (harvestTools && !(heldItem && harvestTools[heldItem.type])) return []
    const entries = registry.blockLoot?.[block.name]?.drops || []
    const drops = []
    for (const entry of entries) {
      if (entry.silkTouch || entry.blockAge !== undefined) continue
      let chance = entry.dropChance ?? 1
      if (block.name.endsWith('_leaves')) {
        if (entry.item === block.name) continue // leaves themselves need shears
        const kind = entry.item.endsWith('_sapling') ? 'sapling' : entry.item
        chance = LEAF_CHANCES[kind] ?? chance
      }
      if (Math.random() > chance) continue
      const [min, max] = entry.stackSizeRange || [1, 1]
      const item = roll([entry.item, Math.max(1, min), Math.max(1, max)])
      if (item) drops.push(item)
    }
    return drops
  }

  serv.mindpyDropBlockLoot = (world, position, block) => {
    for (const item of dropsFor(block, null)) {
      serv.mindpyDropItem(world, position.offset(0.5, 0.5, 0.5), item, { velocity: new Vec3(Math.random() * 2 - 1, 2, Math.random() * 2 - 1) })
    }
  }

  player.on('dug', (data) => {
    if (!data.drops || !data.block) return
    const heldItem = player.inventory.slots[36 + player.heldItemSlot]
    const base = data.drops[0] || {}
    const mine = dropsFor(data.block, heldItem).map(item => ({
      blockDropPosition: data.position.offset(0.5, 0.5, 0.5),
      blockDropWorld: player.world,
      blockDropVelocity: new Vec3(Math.random() * 4 - 2, Math.random() * 2 + 2, Math.random() * 4 - 2),
      blockDropId: item.type,
      blockDropDamage: 0,
      blockDropCount: item.count,
      blockDropPickup: base.blockDropPickup ?? 500,
      blockDropDeath: base.blockDropDeath ?? 5 * 60 * 1000
    }))
    data.drops.length = 0 // the digging plugin drops what this array holds once we return
    data.drops.push(...mine)
  })
}
