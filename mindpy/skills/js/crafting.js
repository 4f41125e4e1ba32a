'use strict'
// Crafting (with or without a crafting table) and smelting.
// A plugin: inject(bot) registers these skills in bot.skills.

const c = require('./common')
const core = require('./core')
const move = require('./movement')
const gather = require('./gathering')

const TABLE_RANGE = 32

// Walk until the block at `pos` can be used (within 4 blocks and in sight).
async function walkWithinReach (bot, pos) {
  if (bot.entity.position.distanceTo(pos) > 4) {
    await move.goto(bot, new move.goals.GoalLookAtBlock(pos, bot.world, { reach: 4 }), 30000)
  }
}

async function findOrPlaceStation (bot, blockName) {
  let station = c.nearestBlock(bot, [blockName], TABLE_RANGE)
  if (!station && c.countItem(bot, blockName) > 0) {
    await gather.placeHere(bot, blockName)
    station = c.nearestBlock(bot, [blockName], 8)
    if (station) station.placedByUs = true
  }
  if (!station) return null
  await walkWithinReach(bot, station.position)
  const block = bot.blockAt(station.position)
  if (block) block.placedByUs = station.placedByUs  // so that the caller takes a station it placed back
  return block
}

function describeIngredients (bot, recipe) {
  const needs = {}
  for (const ingredient of recipe.delta) {
    if (ingredient.count >= 0) continue
    const name = bot.registry.items[ingredient.id]?.name || `item ${ingredient.id}`
    needs[name] = (needs[name] || 0) - ingredient.count
  }
  return Object.entries(needs).map(([name, n]) => `${n} ${name}`).join(', ')
}

// Of several recipes for one item (e.g. one per wood type), the one the inventory is closest to.
function closestRecipe (bot, recipes) {
  let best = null
  let bestMissing = Infinity
  for (const recipe of recipes) {
    let missing = 0
    for (const ingredient of recipe.delta) {
      if (ingredient.count >= 0) continue
      const have = bot.inventory.items().filter(i => i.type === ingredient.id).reduce((n, i) => n + i.count, 0)
      missing += Math.max(0, -ingredient.count - have)
    }
    if (missing < bestMissing) { best = recipe; bestMissing = missing }
  }
  return best
}

// `num` is how many times the recipe is used, as bot.craft counts: one use of oak_log gives 4 oak_planks.
async function craftRecipe (bot, name, num = 1) {
  const item = c.itemByName(bot, name)
  if (num < 1) c.fail('The number of times to use the recipe must be at least 1.')
  let table = null
  let recipes = bot.recipesFor(item.id, null, 1, null)
  if (!recipes.length) {
    const needsTable = bot.recipesAll(item.id, null, true).length > 0
    if (!needsTable && !bot.recipesAll(item.id, null, null).length) c.fail(`${name} cannot be crafted.`)
    if (needsTable) {
      table = await findOrPlaceStation(bot, 'crafting_table')
      if (table) recipes = bot.recipesFor(item.id, null, 1, table)
    }
  }
  if (!recipes.length) {
    const any = closestRecipe(bot, bot.recipesAll(item.id, null, true).concat(bot.recipesAll(item.id, null, null)))
    const tableNote = table || !bot.recipesAll(item.id, null, true).length ? '' : ' and a crafting table nearby (or one in your inventory)'
    c.fail(`You do not have the resources to craft ${name}. One recipe needs: ${describeIngredients(bot, any)}${tableNote}.`)
  }
  const recipe = recipes[0]
  let times = num
  // craft only as many times as the ingredients allow
  for (const ingredient of recipe.delta) {
    if (ingredient.count >= 0) continue
    const have = bot.inventory.items().filter(i => i.type === ingredient.id).reduce((n, i) => n + i.count, 0)
    times = Math.min(times, Math.floor(have / -ingredient.count))
  }
  if (times < 1) c.fail(`You do not have the resources to craft ${name}: needs ${describeIngredients(bot, recipe)}.`)
  const before = c.countItem(bot, name)
  await c.interruptible(bot, bot.craft(recipe, times, table || undefined))
  // the server's inventory update may land just after craft() returns
  const deadline = Date.now() + 2000
  while (c.countItem(bot, name) <= before && Date.now() < deadline) await c.sleep(50)
  const after = c.countItem(bot, name)
  if (after <= before) c.fail(`Crafting ${name} did not work: the inventory did not change.`)
  if (times < num) {
    c.say(bot, `Only had the resources to use the recipe ${times} of ${num} times (${times * recipe.result.count} ${name}).`)
  }
  c.say(bot, `Successfully crafted ${name}, you now have ${after} ${name}.`)
  if (table && table.placedByUs) await takeBackStation(bot, table)
  return true
}

// Break a station placed for one job and pick it up again, so that it is in the inventory for the next one.
async function takeBackStation (bot, block) {
  const before = c.countItem(bot, block.name)
  try {
    await gather.breakBlockAt(bot, block.position.x, block.position.y, block.position.z)
  } catch (err) {
    if (err instanceof c.Interrupted) throw err
    return
  }
  if (await gather.collectDrops(bot, block.position, before, () => c.countItem(bot, block.name))) {
    c.say(bot, `Picked the ${block.name} up again.`)
  }
}

const FUELS = ['coal', 'charcoal', 'coal_block', 'oak_planks', 'spruce_planks', 'birch_planks', 'oak_log',
  'spruce_log', 'birch_log', 'stick']
const FUEL_SMELTS = { coal: 8, charcoal: 8, coal_block: 80, stick: 0.5 }

function fuelFor (bot) {
  for (const name of FUELS) {
    const item = c.inventoryItem(bot, name)
    if (item) return item
  }
  const planks = bot.inventory.items().find(i => i.name.endsWith('_planks') || i.name.endsWith('_log'))
  return planks || null
}

// The item that smelting `target` needs as input (we know the common ones; others must be given directly).
const SMELT_INPUTS = {
  cooked_beef: 'beef', cooked_porkchop: 'porkchop', cooked_chicken: 'chicken', cooked_mutton: 'mutton',
  cooked_rabbit: 'rabbit', cooked_cod: 'cod', cooked_salmon: 'salmon', baked_potato: 'potato',
  iron_ingot: 'raw_iron', gold_ingot: 'raw_gold', copper_ingot: 'raw_copper', glass: 'sand', stone: 'cobblestone',
  smooth_stone: 'stone', brick: 'clay_ball', charcoal: 'oak_log', terracotta: 'clay', dried_kelp: 'kelp'
}

// Raw foods a smoker also cooks, and ores a blast furnace also smelts (a furnace smelts both).
const SMOKER_INPUTS = new Set(['beef', 'porkchop', 'chicken', 'mutton', 'rabbit', 'cod', 'salmon', 'potato', 'kelp'])
const BLAST_INPUTS = new Set(['raw_iron', 'raw_gold', 'raw_copper', 'iron_ore', 'gold_ore', 'copper_ore'])
const STATION_WAIT_MS = 30000

// The nearest furnace-like station that can smelt `input` and is free (or already smelting `input`), opened.
// Another agent's smelting keeps a station busy for a few seconds, so when every one is busy we wait for one.
async function openFreeFurnace (bot, input) {
  const kinds = ['furnace']
  if (SMOKER_INPUTS.has(input)) kinds.push('smoker')
  if (BLAST_INPUTS.has(input)) kinds.push('blast_furnace')
  const ids = kinds.map(n => bot.registry.blocksByName[n]?.id).filter(id => id !== undefined)
  const deadline = Date.now() + STATION_WAIT_MS
  let busyWith = null
  while (true) {
    const positions = bot.findBlocks({ matching: ids, maxDistance: TABLE_RANGE, count: 8 })
    if (!positions.length) {
      const placed = await findOrPlaceStation(bot, 'furnace')
      if (!placed) c.fail('There is no furnace nearby and you have none to place.')
      positions.push(placed.position)
    }
    for (const pos of positions) {
      await walkWithinReach(bot, pos)
      const furnace = await bot.openFurnace(bot.blockAt(pos))
      const inside = furnace.inputItem()
      if (!inside || inside.name === input) return furnace
      busyWith = inside.name
      furnace.close()
    }
    if (Date.now() > deadline) {
      c.fail(`Every furnace nearby is busy (smelting ${busyWith}); wait, or use !clearFurnace.`)
    }
    await c.wait(bot, 2000)
  }
}

async function smeltItem (bot, name, num = 1) {
  // Accept either the raw input (beef) or, if given an output name, its input.
  let input = name
  if (SMELT_INPUTS[name] && !c.inventoryItem(bot, name)) input = SMELT_INPUTS[name]
  const inputItem = c.inventoryItem(bot, input)
  if (!inputItem) c.fail(`You do not have any ${input} to smelt.`)
  const count = Math.min(num, c.countItem(bot, input))
  const furnace = await openFreeFurnace(bot, input)
  try {
    if (!furnace.fuelItem() && !(furnace.fuel > 0)) {
      const fuel = fuelFor(bot)
      if (!fuel) c.fail('You have no fuel (coal, charcoal, planks or logs) for the furnace.')
      const perItem = FUEL_SMELTS[fuel.name] || 1.5
      const fuelCount = Math.min(fuel.count, Math.max(1, Math.ceil(count / perItem)))
      await furnace.putFuel(fuel.type, null, fuelCount)
      c.say(bot, `Added ${fuelCount} ${fuel.name} as fuel.`)
    }
    await furnace.putInput(inputItem.type, null, count)
    let taken = 0
    let outputName = null
    let idleSince = Date.now()
    while (taken < count) {
      await c.wait(bot, 500)
      const output = furnace.outputItem()
      if (output) {
        outputName = output.name
        const got = await furnace.takeOutput()
        taken += got ? got.count : 0
        idleSince = Date.now()
      } else if (!furnace.inputItem()) {
        // The input is used up. The last item's output arrives in its own slot update, which can reach us after
        // the input's: look again a few server ticks later before calling the smelt done.
        await bot.waitForTicks(5)
        if (!furnace.outputItem()) break
      } else if (Date.now() - idleSince > 20000 && !(furnace.progress > 0)) {
        c.say(bot, 'The furnace stopped smelting (out of fuel?).')
        break
      }
    }
    if (!taken) c.fail(`Could not smelt ${input}.`)
    c.say(bot, `Smelted ${taken} ${input} into ${outputName}.`)
    return true
  } finally {
    furnace.close()
  }
}

async function clearFurnace (bot) {
  const furnaceBlock = c.nearestBlock(bot, ['furnace', 'smoker', 'blast_furnace'], TABLE_RANGE)
  if (!furnaceBlock) c.fail('There is no furnace nearby.')
  await walkWithinReach(bot, furnaceBlock.position)
  const furnace = await bot.openFurnace(furnaceBlock)
  try {
    const took = []
    for (const [label, getter, taker] of [['input', 'inputItem', 'takeInput'], ['fuel', 'fuelItem', 'takeFuel'], ['output', 'outputItem', 'takeOutput']]) {
      const item = furnace[getter]()
      if (item) { await furnace[taker](); took.push(`${item.count} ${item.name}`) }
    }
    c.say(bot, took.length ? `Took ${took.join(', ')} from the furnace.` : 'The furnace was already empty.')
    return true
  } finally {
    furnace.close()
  }
}

function inject (bot) {
  bot.loadPlugin(core.inject)
  bot.skills.register({ craftRecipe, smeltItem, clearFurnace })
}

module.exports = { inject, findOrPlaceStation }
