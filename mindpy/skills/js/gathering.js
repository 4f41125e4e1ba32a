'use strict'
// Digging, collecting and placing blocks.
// A plugin: inject(bot) registers these skills in bot.skills; collectDrops() and the rest are for the other concerns.

const c = require('./common')
const core = require('./core')
const move = require('./movement')
const climbing = require('./climbing')

// Names a model may use for a family of blocks.
const BLOCK_FAMILIES = {
  log: ['oak_log', 'birch_log', 'spruce_log', 'jungle_log', 'acacia_log', 'dark_oak_log', 'mangrove_log', 'cherry_log'],
  wood: ['oak_log', 'birch_log', 'spruce_log', 'jungle_log', 'acacia_log', 'dark_oak_log', 'mangrove_log', 'cherry_log'],
  stone: ['stone'],
  cobblestone: ['stone', 'cobblestone'],
  dirt: ['dirt', 'grass_block'],
  coal: ['coal_ore', 'deepslate_coal_ore'],
  iron: ['iron_ore', 'deepslate_iron_ore'],
  gold: ['gold_ore', 'deepslate_gold_ore'],
  diamond: ['diamond_ore', 'deepslate_diamond_ore'],
  // crops asked for by the item they give
  carrot: ['carrots'],
  potato: ['potatoes'],
  beetroot: ['beetroots']
}

// Which blocks to dig when asked to collect `type`, and which item counts as collected.
function blockTypesFor (bot, type) {
  if (BLOCK_FAMILIES[type]) return BLOCK_FAMILIES[type]
  if (bot.registry.blocksByName[type]) {
    const types = [type]
    if (type.endsWith('_ore') && bot.registry.blocksByName['deepslate_' + type]) types.push('deepslate_' + type)
    return types
  }
  c.fail(`There is no block called '${type}'.`)
}

const CROP_MAX_AGE = { wheat: 7, carrots: 7, potatoes: 7, beetroots: 3 }

function harvestable (block) {
  const maxAge = CROP_MAX_AGE[block.name]
  if (maxAge === undefined) return true
  const props = block.getProperties ? block.getProperties() : {}
  return Number(props.age) === maxAge
}

async function equipBestTool (bot, block) {
  move.ensurePathfinder(bot)
  const tool = bot.pathfinder.bestHarvestTool(block)
  if (tool) await bot.equip(tool, 'hand')
  const held = bot.heldItem ? bot.heldItem.type : null
  return block.canHarvest(held)
}

// Walk over to dropped items near a position so they are picked up.
async function pickupNearbyItems (bot, range = 8) {
  const seen = new Set()
  for (let i = 0; i < 8; i++) {
    const drop = bot.nearestEntity(e => e.name === 'item' && !seen.has(e.id) &&
      e.position.distanceTo(bot.entity.position) <= range)
    if (!drop) break
    seen.add(drop.id)
    try {
      await move.goto(bot, new move.goals.GoalNear(drop.position.x, drop.position.y, drop.position.z, 0.5), 8000)
    } catch (err) {
      if (err instanceof c.Interrupted) throw err
    }
    await c.wait(bot, 250)
  }
  return true
}

// After digging: wait for the drops to appear (the server spawns them a moment later) and walk over them,
// until the inventory has grown and none is left where the block was, or 3 s have passed. A block can drop more
// than one item (wheat: wheat and seeds): the first picked up must not pass for all, or the report "Collected 3
// wheat" comes before the wheat, and the craft that follows finds none.
async function collectDrops (bot, position, before, countItems, ms = 3000) {
  const deadline = Date.now() + ms
  const centre = position.offset(0.5, 0.5, 0.5)
  const leftHere = () => bot.nearestEntity(e => e.name === 'item' && e.position.distanceTo(centre) <= 1.5)
  while (Date.now() < deadline) {
    if (countItems() > before && !leftHere()) return true
    const drop = bot.nearestEntity(e => e.name === 'item' && e.position.distanceTo(position) <= 4)
    if (drop) {
      try {
        await move.goto(bot, new move.goals.GoalNear(drop.position.x, drop.position.y, drop.position.z, 0.5), 4000)
      } catch (err) {
        if (err instanceof c.Interrupted) throw err
      }
    }
    await c.wait(bot, 100)
  }
  return countItems() > before
}

async function digBlock (bot, block) {
  await c.interruptible(bot, bot.dig(block, true), () => bot.stopDigging())
}

async function collectBlocks (bot, type, num = 1) {
  if (num < 1) c.fail('The number of blocks to collect must be at least 1.')
  const types = blockTypesFor(bot, type)
  // air, water, lava, bedrock, barriers...: "digging" them yields nothing, or nothing can dig them
  if (types.every(t => bot.registry.blocksByName[t]?.diggable === false)) {
    c.fail(`${type} cannot be mined: name a block that can be dug, such as oak_log or stone.`)
  }
  move.ensurePathfinder(bot)
  let collected = 0
  let misses = 0
  const unreachable = new Set()
  const countDrops = () => bot.inventory.items().reduce((n, item) => n + item.count, 0)
  while (collected < num) {
    c.checkInterrupt(bot)
    const block = c.nearestBlock(bot, types, 64, b => harvestable(b) && !unreachable.has(b.position.toString()))
    if (!block) {
      if (collected === 0) c.fail(`No ${type} nearby to collect.`)
      c.say(bot, `No more ${type} nearby.`)
      break
    }
    if (!(await equipBestTool(bot, block))) {
      c.fail(`You do not have the right tool to harvest ${block.name}.`)
    }
    const before = countDrops()
    const withinReach = () => bot.entity.position.offset(0, 1.6, 0).distanceTo(block.position.offset(0.5, 0.5, 0.5)) <= 4.2
    if (!withinReach()) {
      try {
        await move.goto(bot, new move.goals.GoalLookAtBlock(block.position, bot.world, { reach: 4 }), 30000)
      } catch (err) {
        if (err instanceof c.Interrupted) throw err
        // plants and other see-through blocks can be dug from where the bot stands
        if (!withinReach()) {
          unreachable.add(block.position.toString())
          continue
        }
      }
    }
    await equipBestTool(bot, block)
    const fresh = bot.blockAt(block.position)
    if (!fresh || !types.includes(fresh.name)) continue
    await digBlock(bot, fresh)
    if (await collectDrops(bot, fresh.position, before, countDrops)) {
      collected += 1
    } else {
      c.say(bot, `Dug ${fresh.name} but picked up nothing from it.`)
      if (++misses >= 3) break
    }
  }
  c.say(bot, `Collected ${collected} ${type}.`)
  if (collected === 0) c.fail(`Could not collect any ${type}.`)
  return true
}

async function breakBlockAt (bot, x, y, z) {
  const block = bot.blockAt(new c.Vec3(x, y, z))
  if (!block) c.fail(`The block at ${c.fmt({ x, y, z })} is not loaded.`)
  if (block.name === 'air' || block.name === 'water' || block.name === 'lava') {
    c.say(bot, `There is no block to break at ${c.fmt({ x, y, z })}.`)
    return true
  }
  move.ensurePathfinder(bot)
  if (bot.entity.position.distanceTo(block.position) > 4.5) {
    await move.goto(bot, new move.goals.GoalLookAtBlock(block.position, bot.world, { reach: 4 }), 30000)
  }
  if (bot.game.gameMode !== 'creative' && !(await equipBestTool(bot, block))) {
    c.fail(`You do not have the right tool to break ${block.name}.`)
  }
  await digBlock(bot, block)
  c.say(bot, `Broke ${block.name} at ${c.fmt(block.position)}.`)
  return true
}

// Blocks a click opens or uses instead of placing against them (unless the bot sneaks).
const INTERACTIVE = /door|gate|chest|barrel|table|furnace|smoker|anvil|_bed$|button|lever|hopper|dispenser|dropper|repeater|comparator|note_block|shulker_box|loom|stonecutter|grindstone|lectern|cauldron|bell/

const FACES = [[0, -1, 0], [0, 1, 0], [1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1]]

function isEmpty (block) {
  return !block || ['air', 'cave_air', 'water', 'lava', 'short_grass', 'tall_grass', 'snow'].includes(block.name)
}

// How far from its eyes the bot places a block (mineflayer's and vanilla survival's block reach).
const PLACE_REACH = 4.5

// Whether an entity's box (0.6 wide, 1.8 high; `pad` more on each side) overlaps the block cell at `target`.
function inCell (entity, target, pad = 0) {
  const p = entity.position
  const half = (entity.width || 0.6) / 2 + pad
  const height = entity.height || 1.8
  return p.x + half > target.x && p.x - half < target.x + 1 && p.z + half > target.z && p.z - half < target.z + 1 &&
    p.y + height > target.y && p.y < target.y + 1
}

// The other players and mobs standing in the cell (the server refuses a block there).
function othersInCell (bot, target) {
  return Object.values(bot.entities).filter(e => e !== bot.entity && e.position &&
    ['player', 'mob', 'animal', 'hostile', 'passive'].includes(e.type) && inCell(e, target))
}

// Step out of the cell at `target` (and out of the cell below it, which the bot would stand on).
async function leaveCell (bot, target) {
  if (!inCell(bot.entity, target, 0.05) && !inCell(bot.entity, target.offset(0, -1, 0), 0.05)) return
  await climbing.walkTo(bot, new move.goals.GoalInvert(new move.goals.GoalNear(target.x, target.y, target.z, 1.5)), 10000)
}

async function placeBlock (bot, type, x, y, z) {
  const target = new c.Vec3(Math.floor(x), Math.floor(y), Math.floor(z))
  if (c.state(bot).cheat) {
    if (c.state(bot).restrictToInventory && !c.inventoryItem(bot, type)) {
      c.fail(`Cannot place ${type}: you are restricted to your current inventory, which has none.`)
    }
    bot.chat(`/setblock ${target.x} ${target.y} ${target.z} ${type}`)
    c.say(bot, `Placed ${type} at ${c.fmt(target)}.`)
    return true
  }
  const item = c.inventoryItem(bot, type)
  if (!item && bot.game.gameMode !== 'creative') c.fail(`You do not have any ${type} to place.`)
  const existing = bot.blockAt(target)
  if (!isEmpty(existing)) {
    if (existing.name === type) { c.say(bot, `${type} is already at ${c.fmt(target)}.`); return true }
    c.fail(`There is already ${existing.name} at ${c.fmt(target)}; break it first.`)
  }
  // a solid neighbour to place against; not a door, chest or table where one will do (a click there opens it)
  let reference = null
  let face = null
  for (const [dx, dy, dz] of FACES) {
    const neighbour = bot.blockAt(target.offset(dx, dy, dz))
    if (neighbour && !isEmpty(neighbour) && neighbour.boundingBox === 'block' &&
        (!reference || (INTERACTIVE.test(reference.name) && !INTERACTIVE.test(neighbour.name)))) {
      reference = neighbour
      face = new c.Vec3(-dx, -dy, -dz)
    }
  }
  if (!reference) c.fail(`Nothing to place ${type} against at ${c.fmt(target)}.`)
  move.ensurePathfinder(bot)
  await leaveCell(bot, target)
  if (move.eyeDistance(bot, target) > PLACE_REACH) {
    await climbing.reachBlock(bot, target, PLACE_REACH) // walking, or climbing dirt where no walk reaches
    await leaveCell(bot, target)
  }
  if (move.eyeDistance(bot, target) > PLACE_REACH) {
    c.fail(`Could not place ${type} at ${c.fmt(target)}: it is out of reach from ${c.fmt(bot.entity.position)}.`)
  }
  // someone else in the cell: wait a moment for them to move on
  for (let i = 0; i < 20 && othersInCell(bot, target).length; i++) await c.wait(bot, 100)
  const blocking = othersInCell(bot, target)
  if (blocking.length) {
    const who = blocking.map(e => e.username || e.name).join(', ')
    c.fail(`Could not place ${type} at ${c.fmt(target)}: ${who} is standing there.`)
  }
  if (item) await bot.equip(item, 'hand')
  else await bot.creative.setInventorySlot(36, new (require('prismarine-item')(bot.registry))(c.itemByName(bot, type).id, 1))
  await bot.lookAt(target.offset(0.5, 0.5, 0.5), true)
  const sneak = INTERACTIVE.test(reference.name) // a sneaking click places against a door instead of opening it
  if (sneak) { bot.setControlState('sneak', true); await c.wait(bot, 100) }
  try {
    await bot.placeBlock(reference, face)
  } catch (err) {
    // the server may place the block without mineflayer seeing the update in time
    const placed = bot.blockAt(target)
    if (!placed || placed.name !== type) c.fail(`Could not place ${type} at ${c.fmt(target)}: ${err.message}`)
  } finally {
    if (sneak) bot.setControlState('sneak', false)
  }
  c.say(bot, `Placed ${type} at ${c.fmt(target)}.`)
  return true
}

// Place a block next to the bot (not where it stands).
async function placeHere (bot, type) {
  const feet = bot.entity.position.floored()
  const spots = [[1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1], [1, 0, 1], [-1, 0, -1], [1, 0, -1], [-1, 0, 1]]
  for (const [dx, dy, dz] of spots) {
    const spot = feet.offset(dx, dy, dz)
    if (isEmpty(bot.blockAt(spot)) && !isEmpty(bot.blockAt(spot.offset(0, -1, 0)))) {
      return placeBlock(bot, type, spot.x, spot.y, spot.z)
    }
  }
  // Walled in (a tunnel the bot dug, a 1x1 shaft): clear a cell beside it, as a player would, and place there.
  const protectedIds = c.state(bot).movements?.blocksCantBreak || new Set()
  for (const [dx, dy, dz] of spots.slice(0, 4)) {
    const spot = feet.offset(dx, dy, dz)
    const block = bot.blockAt(spot)
    const under = bot.blockAt(spot.offset(0, -1, 0))
    if (!block || isEmpty(block) || isEmpty(under) || !block.diggable || block.name === 'bedrock') continue
    if (protectedIds.has(block.type) || INTERACTIVE.test(block.name)) continue // a build's block, a chest...
    if (!(await equipBestTool(bot, block)) && block.harvestTools) continue // it would take ages by hand
    await digBlock(bot, block)
    if (isEmpty(bot.blockAt(spot))) {
      c.say(bot, `Dug out ${block.name} beside you to make room.`)
      return placeBlock(bot, type, spot.x, spot.y, spot.z)
    }
  }
  c.fail(`No free spot next to you to place ${type}; move somewhere more open.`)
}

async function digDown (bot, distance = 10) {
  const start = bot.entity.position.floored()
  // stand in the middle of the block, or the bot stays on the edges of its neighbours
  await move.goto(bot, new move.goals.GoalBlock(start.x, start.y, start.z), 10000)
  for (let i = 1; i <= distance; i++) {
    c.checkInterrupt(bot)
    const feet = bot.entity.position.floored()
    const below = bot.blockAt(feet.offset(0, -1, 0))
    if (!below) break
    if (below.name === 'bedrock') { c.say(bot, 'Reached bedrock; cannot dig further.'); break }
    if (below.name === 'lava' || below.name === 'water') { c.say(bot, `Stopped: ${below.name} below.`); break }
    const under = bot.blockAt(below.position.offset(0, -1, 0))
    if (under && (under.name === 'lava' || under.name === 'water')) {
      c.say(bot, `Stopped: ${under.name} below.`)
      break
    }
    if (bot.game.gameMode !== 'creative' && !(await equipBestTool(bot, below))) {
      c.fail(`You do not have the right tool to dig through ${below.name}.`)
    }
    await digBlock(bot, below)
    const deadline = Date.now() + 2000
    while (bot.entity.position.y > feet.y - 0.9 && Date.now() < deadline) await c.wait(bot, 50)
  }
  const dug = start.y - bot.entity.position.floored().y
  c.say(bot, `Dug down ${dug} blocks.`)
  return dug > 0
}

function inject (bot) {
  bot.loadPlugin(core.inject)
  bot.skills.register({ collectBlocks, breakBlockAt, placeBlock, placeHere, digDown, pickupNearbyItems })
}

module.exports = { inject, collectDrops, breakBlockAt, placeHere, pickupNearbyItems, equipBestTool, harvestable }
