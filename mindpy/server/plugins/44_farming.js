'use strict'
// Farming as in vanilla: a hoe used on grass or dirt (with air above) tills it into farmland; seeds,
// carrots and potatoes used on farmland plant their crop (age 0), melon and pumpkin seeds their stem,
// sweet berries a bush on grass or dirt; bone meal used on a crop or stem grows it 2-5 stages (a bush 1).
// Crops on farmland grow by themselves, one stage a minute on average (plugin option `cropGrowthSpeed`
// multiplies that, for tests). flying-squid does none of this: seeds are not blocks, so it places nothing.

const CROPS = {
  wheat_seeds: 'wheat',
  beetroot_seeds: 'beetroots',
  carrot: 'carrots',
  potato: 'potatoes',
  melon_seeds: 'melon_stem',
  pumpkin_seeds: 'pumpkin_stem'
}
const TILLABLE = new Set(['grass_block', 'dirt', 'dirt_path', 'coarse_dirt'])
const BUSH_SOIL = new Set(['grass_block', 'dirt', 'coarse_dirt', 'podzol', 'farmland'])
const SECONDS_PER_STAGE = 60
const GROW_CHECK_MS = 1000

module.exports.server = function (serv, settings) {
  const registry = serv.registry
  const Block = require('prismarine-block')(registry)
  const speed = Math.max(0, Number(settings?.mindpy?.pluginOptions?.cropGrowthSpeed) || 1)
  const growable = new Set([...Object.values(CROPS), 'sweet_berry_bush'])
  const maxAge = name => registry.blocksByName[name].states.find(s => s.name === 'age').num_values - 1
  const growing = new Map() // "x,y,z" -> {world, pos}: crops that are not fully grown yet

  const nameAt = (world, pos) => registry.blocks[world.sync.getBlockType(pos)]?.name
  const stateOf = (name, properties) => Block.fromProperties(name, properties, 0).stateId

  // Every crop block set anywhere (planting, /setblock) is watched until it is fully grown. flying-squid
  // defines serv.setBlock after our plugins load: wrap it once all have.
  serv.once('asap', () => {
    const setBlock = serv.setBlock
    serv.setBlock = async (world, pos, stateId) => {
      const name = registry.blocksByStateId[stateId]?.name
      if (growable.has(name)) growing.set(`${pos.x},${pos.y},${pos.z}`, { world, pos: pos.clone() })
      return setBlock(world, pos, stateId)
    }
  })

  async function grow (world, pos, stages) {
    const block = await world.getBlock(pos)
    if (!growable.has(block.name)) return false
    const age = Number(block.getProperties().age)
    const grown = Math.min(maxAge(block.name), age + stages)
    if (grown === age) return false
    await serv.setBlock(world, pos, stateOf(block.name, { ...block.getProperties(), age: grown }))
    return true
  }

  setInterval(() => {
    const chance = Math.min(1, (speed * GROW_CHECK_MS) / 1000 / SECONDS_PER_STAGE)
    for (const [key, { world, pos }] of growing) {
      const name = nameAt(world, pos)
      if (!growable.has(name) || !world.sync.getColumnAt(pos)) { growing.delete(key); continue }
      const onSoil = name === 'sweet_berry_bush' || nameAt(world, pos.offset(0, -1, 0)) === 'farmland'
      if (!onSoil || Math.random() > chance) continue
      grow(world, pos, 1).then(changed => {
        if (!changed) growing.delete(key)
      }).catch(err => console.error('[mindpy] crop growth:', err))
    }
  }, GROW_CHECK_MS).unref()

  // Use up one of the held item (placing returns nothing for these, so flying-squid takes none).
  function useOne (player) {
    if (player.gameMode !== 0) return
    const slot = 36 + player.heldItemSlot
    const held = player.inventory.slots[slot]
    if (!held) return
    player.inventory.updateSlot(slot, held.count > 1 ? Object.assign(held, { count: held.count - 1 }) : null)
  }

  serv.once('pluginsReady', () => {
    for (const item of registry.itemsArray.filter(i => i.name.endsWith('_hoe'))) {
      serv.onItemPlace(item.name, async ({ player, referencePosition, direction }) => {
        const target = await player.world.getBlock(referencePosition)
        const above = await player.world.getBlock(referencePosition.offset(0, 1, 0))
        if (direction !== 0 && TILLABLE.has(target.name) && above.name === 'air') {
          await serv.setBlock(player.world, referencePosition, stateOf('farmland', { moisture: 0 }))
        }
        return {} // nothing is placed
      }, false)
    }

    for (const [seed, crop] of Object.entries(CROPS)) {
      serv.onItemPlace(seed, async ({ player, placedPosition }) => {
        const soil = await player.world.getBlock(placedPosition.offset(0, -1, 0))
        const here = await player.world.getBlock(placedPosition)
        if (soil.name !== 'farmland' || here.name !== 'air') return {}
        const block = registry.blocksByName[crop]
        return { id: block.id, data: stateOf(crop, { age: 0 }) - block.minStateId }
      }, false)
    }

    serv.onItemPlace('sweet_berries', async ({ player, placedPosition }) => {
      const soil = await player.world.getBlock(placedPosition.offset(0, -1, 0))
      const here = await player.world.getBlock(placedPosition)
      if (!BUSH_SOIL.has(soil.name) || here.name !== 'air') return {}
      const block = registry.blocksByName.sweet_berry_bush
      return { id: block.id, data: stateOf('sweet_berry_bush', { age: 0 }) - block.minStateId }
    }, false)

    serv.onItemPlace('bone_meal', async ({ player, referencePosition }) => {
      const target = await player.world.getBlock(referencePosition)
      if (!growable.has(target.name)) return {}
      const stages = target.name === 'sweet_berry_bush' ? 1 : 2 + Math.floor(Math.random() * 4)
      if (await grow(player.world, referencePosition, stages)) useOne(player)
      return {}
    }, false)
  })

  serv.mindpyGrowingCrops = () => growing.size
}
