'use strict'
// What a dug block drops. flying-squid drops one of every entry of minecraft-data's loot table every time,
// ignoring chances, counts, crop age and the tool (stone dug by hand drops cobblestone), and removes a
// plant standing on a dug block without dropping it. Here drops follow the crop's age (wheat and seeds
// only when grown), the chance and count of each entry, and the tool; plants on top drop too, and a
// sugar cane column breaks above the cut like in vanilla. serv.mindpyDropBlockLoot is used by
// `/setblock ... destroy` and `/fill ... destroy` as well.

const { Vec3 } = require('vec3')

// Vanilla crop harvests by age (minecraft-data's tables for these are simplified: no counts by age).
const CROPS = {
  wheat: { ripe: 7, grown: [['wheat', 1, 1], ['wheat_seeds', 1, 4]], young: [['wheat_seeds', 1, 1]] },
  beetroots: { ripe: 3, grown: [['beetroot', 1, 1], ['beetroot_seeds', 1, 4]], young: [['beetroot_seeds', 1, 1]] },
  carrots: { ripe: 7, grown: [['carrot', 2, 5]], young: [['carrot', 1, 1]] },
  potatoes: { ripe: 7, grown: [['potato', 2, 5]], young: [['potato', 1, 1]] }
}
// Vanilla leaf drops without shears (minecraft-data lists each with chance 0.5 or 1).
const LEAF_CHANCES = { sapling: 0.05, stick: 0.02, apple: 0.005 }
// Plants that stack on themselves and break above a cut.
const COLUMNS = new Set(['sugar_cane', 'bamboo', 'cactus'])

module.exports.server = function (serv) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)

  function roll ([name, min, max]) {
    const item = registry.itemsByName[name]
    const count = serv.mindpyLoot.count(min, max)
    return item && count > 0 ? new Item(item.id, count) : null
  }

  // Items (prismarine-item) that `block` drops when mined with `heldItem` (null: by hand).
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
      // minecraft-data splits alternatives into chances of 0.5: "with silk touch: stone, else: cobblestone"
      // is stone 0.5 and cobblestone 0.5, "with shears: cobweb, else: string" likewise.
      let chance = entry.noSilkTouch ? 1 : (entry.dropChance ?? 1)
      if (entry.item === block.name && chance === 0.5 && entries.length > 1) continue // the shears alternative
      if (block.name.endsWith('_leaves')) {
        if (entry.item === block.name) continue // leaves themselves need shears
        const kind = entry.item.endsWith('_sapling') ? 'sapling' : entry.item
        chance = LEAF_CHANCES[kind] ?? chance
      }
      if (!serv.mindpyLoot.chance(chance)) continue
      const [min, max] = entry.stackSizeRange || [1, 1]
      const item = roll([entry.item, Math.max(1, min || 1), Math.max(1, max || 1)])
      if (item) drops.push(item)
    }
    return drops
  }
  serv.mindpyDropsFor = dropsFor

  const scatter = () => new Vec3(serv.mindpyLoot.spread(2), serv.mindpyLoot.between(2, 4), serv.mindpyLoot.spread(2))

  serv.mindpyDropBlockLoot = (world, position, block, heldItem = null) => {
    for (const item of dropsFor(block, heldItem)) {
      serv.mindpyDropItem(world, position.offset(0.5, 0.5, 0.5), item, { velocity: scatter() })
    }
  }

  // After a block is gone: what stood on it falls off with its drops (a whole column of sugar cane).
  async function breakWhatStoodOn (world, position, dug) {
    let above = position.offset(0, 1, 0)
    for (;;) {
      const block = await world.getBlock(above)
      const supported = block.material?.startsWith('plant') || (COLUMNS.has(block.name) && block.name === dug.name)
      if (!block || block.type === 0 || !supported) return
      serv.mindpyDropBlockLoot(world, above, block, null)
      await serv.setBlock(world, above, 0)
      if (!COLUMNS.has(block.name)) return
      above = above.offset(0, 1, 0)
    }
  }

  serv.on('newPlayer', (player) => {
    player.on('dug', async (data) => {
      if (!data.drops || !data.block) return
      const heldItem = player.inventory.slots[36 + player.heldItemSlot]
      const base = data.drops[0] || {}
      const mine = dropsFor(data.block, heldItem).map(item => ({
        blockDropPosition: data.position.offset(0.5, 0.5, 0.5),
        blockDropWorld: player.world,
        blockDropVelocity: scatter(),
        blockDropId: item.type,
        blockDropDamage: 0,
        blockDropCount: item.count,
        blockDropPickup: base.blockDropPickup ?? 500,
        blockDropDeath: base.blockDropDeath ?? 5 * 60 * 1000
      }))
      data.drops.length = 0 // flying-squid's digging drops what this array holds once the listeners return
      data.drops.push(...mine)
      // flying-squid removes a plant on top without its drops: break it here first (listeners are awaited)
      await breakWhatStoodOn(player.world, data.position, data.block)
    })
  })
}
