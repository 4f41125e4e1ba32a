'use strict'
// Furnaces, smokers and blast furnaces, with our own recipe and fuel table (js/data/smelting.json:
// minecraft-data has none). Slots: 0 input, 1 fuel, 2 output. The logic is vanilla's furnace tick: a fuel
// item is lit when there is something it can smelt; while lit, progress grows by one per tick and an item is
// done at 200 ticks (100 in a smoker or blast furnace, which also burn fuel twice as fast); progress falls
// back when the fire goes out. A smoker smelts only food, a blast furnace only ores, raw metals and metal
// gear, though (as in vanilla) anything can be put in their input slot. Progress reaches clients through the
// window properties (0 fuel left, 1 fuel total, 2 progress, 3 progress total) that bot.openFurnace reads,
// and the block shows its fire (state lit=true) while fuel burns.
//
// Plugin option `smeltSpeed` (default 1) runs that many furnace ticks per game tick, for tests.

const path = require('path')
const smelting = require(path.join(__dirname, '..', 'js', 'data', 'smelting.json'))

const FURNACES = ['furnace', 'smoker', 'blast_furnace']
const ACCEPTS = { furnace: null, smoker: 'food', blast_furnace: 'ore' } // recipe kind each one smelts (null: all)
const TICK_MS = 50

module.exports.server = function (serv, settings) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  const Block = require('prismarine-block')(registry)
  const containers = serv.mindpyBlockContainers
  const speed = Math.max(0, Number(settings?.mindpy?.pluginOptions?.smeltSpeed) || 1)
  const nameOf = item => (item ? registry.items[item.type]?.name : null)

  const fuelTicks = item => smelting.fuels[nameOf(item)] || 0

  function recipeFor (kind, item) {
    const recipe = item && smelting.recipes[nameOf(item)]
    if (!recipe || (ACCEPTS[kind] && recipe.kind !== ACCEPTS[kind])) return null
    return recipe
  }

  // ---- the furnace tick ---------------------------------------------------------------------------------
  function furnaceState (container) {
    if (!container.fire) container.fire = { lit: 0, litTotal: 0, progress: 0, carry: 0 }
    return container.fire
  }

  function canSmelt (container) {
    const [input, , output] = container.slots
    const recipe = recipeFor(container.kind, input)
    const result = recipe && registry.itemsByName[recipe.output]
    if (!result) return false
    return !output || (output.type === result.id && output.count < output.stackSize)
  }

  function smeltOne (container) {
    const [input, , output] = container.slots
    const result = registry.itemsByName[recipeFor(container.kind, input).output]
    container.slots[0] = input.count > 1 ? new Item(input.type, input.count - 1) : null
    container.slots[2] = new Item(result.id, (output ? output.count : 0) + 1)
  }

  // One game tick of one furnace; returns true when its slots changed.
  function tickOnce (container) {
    const fire = furnaceState(container)
    const total = smelting.cookTicks[container.kind]
    let slotsChanged = false
    if (fire.lit > 0) fire.lit--
    const [input, fuel] = container.slots
    if (fire.lit > 0 || (input && fuel)) {
      if (fire.lit <= 0 && canSmelt(container) && fuelTicks(fuel) > 0) {
        fire.lit = fire.litTotal = container.kind === 'furnace' ? fuelTicks(fuel) : Math.floor(fuelTicks(fuel) / 2)
        const remainder = nameOf(fuel) === 'lava_bucket' ? new Item(registry.itemsByName.bucket.id, 1) : null
        container.slots[1] = fuel.count > 1 ? new Item(fuel.type, fuel.count - 1) : remainder
        slotsChanged = true
      }
      if (fire.lit > 0 && canSmelt(container)) {
        if (++fire.progress >= total) {
          fire.progress = 0
          smeltOne(container)
          slotsChanged = true
        }
      } else {
        fire.progress = 0
      }
    } else if (fire.progress > 0) {
      fire.progress = Math.max(0, fire.progress - 2)
    }
    return slotsChanged
  }

  function isBusy (container) {
    const fire = furnaceState(container)
    return fire.lit > 0 || fire.progress > 0 || (container.slots[0] && container.slots[1])
  }

  function tick (container) {
    const fire = furnaceState(container)
    const before = [fire.lit, fire.litTotal, fire.progress].join()
    let slotsChanged = false
    fire.carry += speed
    for (; fire.carry >= 1; fire.carry--) slotsChanged = tickOnce(container) || slotsChanged
    if (slotsChanged) containers.changed(container)
    if ([fire.lit, fire.litTotal, fire.progress].join() !== before) sendProperties(container)
    showFire(container, fire.lit > 0)
  }

  // The block's `lit` state, so that players see the fire (the same block: its contents stay).
  function showFire (container, lit) {
    if (container.shownLit === lit) return
    container.shownLit = lit
    container.world.getBlock(container.position).then(block => {
      if (!block || block.name !== container.kind || block.getProperties().lit === lit) return
      const state = Block.fromProperties(block.name, { ...block.getProperties(), lit }, block.biome?.id ?? 0).stateId
      return serv.setBlock(container.world, container.position, state)
    }).catch(err => serv.err?.(`[mindpy] furnace fire: ${err.stack}`))
  }

  setInterval(() => {
    for (const container of containers.all()) {
      if (!FURNACES.includes(container.kind)) continue
      if (!isBusy(container)) { if (container.shownLit) showFire(container, false); continue }
      try { tick(container) } catch (err) { serv.err?.(`[mindpy] furnace tick: ${err.stack}`) }
    }
  }, TICK_MS).unref()

  function sendProperties (container, onlyTo = null) {
    const fire = furnaceState(container)
    const values = [fire.lit, fire.litTotal, fire.progress, smelting.cookTicks[container.kind]]
    for (const player of container.viewers) {
      if (onlyTo && player !== onlyTo) continue
      const windowId = player.mindpyCurrentWindow()?.id
      if (windowId === undefined) continue
      // totals first: mineflayer divides each value by the total it last received
      for (const property of [1, 0, 3, 2]) player._client.write('craft_progress_bar', { windowId, property, value: values[property] })
    }
  }

  // ---- the window ---------------------------------------------------------------------------------------
  function openFurnace (player, block) {
    const container = containers.containerAt(player.world, block.position, block.name)
    player.mindpyOpenWindow({
      type: `minecraft:${block.name}`,
      title: block.name === 'blast_furnace' ? 'Blast Furnace' : block.name[0].toUpperCase() + block.name.slice(1),
      size: 3,
      block: { position: block.position, name: block.name },
      get: i => container.slots[i],
      set: (i, item) => { container.slots[i] = item },
      isResult: () => false,
      // the output slot takes nothing; the fuel slot takes fuel (and empty buckets, as in vanilla)
      mayPlace: (i, item) => (i === 0 || (i === 1 && (fuelTicks(item) > 0 || nameOf(item) === 'bucket'))),
      // shift-click: what this furnace smelts to the input, fuel to the fuel slot, else main <-> hotbar
      quickMoveInto: item => {
        if (recipeFor(block.name, item)) return [[0, 1]]
        if (fuelTicks(item) > 0) return [[1, 2]]
        return ['swap']
      },
      after: () => containers.changed(container, player),
      onOpen: () => { container.viewers.add(player); sendProperties(container, player) },
      onClose: () => container.viewers.delete(player)
    })
  }

  for (const name of FURNACES) containers.define(name, 3)

  serv.once('pluginsReady', () => {
    for (const name of FURNACES) {
      if (!registry.blocksByName[name]) continue
      serv.onBlockInteraction(name, ({ block, player }) => {
        if (player.crouching) return false
        openFurnace(player, block)
        return true
      })
    }
  })
}
