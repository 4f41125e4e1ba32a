'use strict'
// How a builder moves round a build: walking without digging into it (only into the world's ground), and, where no
// walk reaches a block, climbing a pillar of dirt stacked on the world's own ground beside it. Not a plugin:
// gathering's placeBlock uses it.
// The pathfinder's own climbing did not serve: its 1x1 towers place each block mid-jump (lost on a busy machine),
// its dirt staircases are searched for longer than any think time, and it cannot pass a door or walk up stairs
// under a low ceiling (a house's stairwell), so an upper storey was out of its reach.

const c = require('./common')
const move = require('./movement')

// The world's own ground: a builder stacks climbing dirt on it, and digs through it to climb out of a pit (its own
// dirt digging leaves some). Never a built floor or wall: no pillar goes up inside a house (one more block to
// remove), and no path digs through a build. (No stone: blueprints use it.)
const GROUND = new Set(['dirt', 'grass_block', 'coarse_dirt', 'podzol', 'mycelium', 'sand', 'gravel', 'snow_block'])
const PILLAR = new Set(['dirt', 'grass_block']) // what a pillar's blocks read as (grass spreads onto its top)
const THINK_MS = 15000 // a search round a house on a busy machine outlasts the pathfinder's default 5 s
const SPOT_TRIES = 3   // spots to walk to before giving up on climbing to a block
const SEARCH = 4       // how far (in blocks, each way) from the block to look for ground to climb from

function isAir (block) {
  return !!block && block.boundingBox === 'empty' && !['water', 'lava'].includes(block.name)
}

// Go to `goal` placing nothing and digging only the world's own ground (out of a pit), never a build.
async function walkTo (bot, goal, timeoutMs) {
  move.ensurePathfinder(bot)
  const movements = c.state(bot).movements
  const saved = [movements.canDig, movements.scafoldingBlocks, movements.exclusionAreasBreak,
    bot.pathfinder.thinkTimeout]
  movements.canDig = true
  movements.exclusionAreasBreak = [block => GROUND.has(block.name) ? 0 : 100] // 100: never broken
  movements.scafoldingBlocks = []
  bot.pathfinder.thinkTimeout = Math.max(bot.pathfinder.thinkTimeout, THINK_MS)
  try {
    await move.goto(bot, goal, timeoutMs)
  } finally {
    [movements.canDig, movements.scafoldingBlocks, movements.exclusionAreasBreak, bot.pathfinder.thinkTimeout] = saved
  }
}

// Ground beside `target` to climb from, nearest first: columns within SEARCH whose open air reaches down from the
// target's height to natural ground. Each spot: where the bot stands at the foot, and how many dirt blocks lift
// its eyes to the target's height.
function climbSpots (bot, target, reach) {
  const spots = []
  for (let dx = -SEARCH; dx <= SEARCH; dx++) {
    for (let dz = -SEARCH; dz <= SEARCH; dz++) {
      if (dx === 0 && dz === 0) continue
      const flat = Math.hypot(dx, dz)
      if (flat > reach - 0.3) continue // eyes level with the block's middle: the flat distance is nearly all of it
      let y = target.y + 1
      while (y > target.y - 16 && isAir(bot.blockAt(target.offset(dx, y - target.y, dz)))) y--
      const ground = bot.blockAt(target.offset(dx, y - target.y, dz))
      if (!ground || !GROUND.has(ground.name) || y >= target.y) continue
      const foot = target.offset(dx, y + 1 - target.y, dz)
      const height = Math.max(0, target.y - 1 - foot.y) // eyes about level with the block's middle
      spots.push({ foot, height, score: flat + height * 0.5 })
    }
  }
  return spots.sort((a, b) => a.score - b.score)
}

// Stack `n` dirt blocks under the bot: jump, and place one on the block below once the feet are above it (as the
// pathfinder's towers do, but waiting for each block and trying each again: a busy server drops some).
const PLACE_TRIES = 3

async function pillarUp (bot, n) {
  for (let i = 0; i < n; i++) {
    const feet = bot.entity.position.floored()
    const below = bot.blockAt(feet.offset(0, -1, 0))
    let placed = false
    for (let attempt = 0; attempt < PLACE_TRIES && !placed; attempt++) {
      c.checkInterrupt(bot)
      const dirt = c.inventoryItem(bot, 'dirt')
      if (!dirt) c.fail('Out of dirt to climb on.')
      await bot.equip(dirt, 'hand')
      await bot.look(bot.entity.yaw, -Math.PI / 2, true)
      bot.setControlState('jump', true)
      const deadline = Date.now() + 2000
      while (bot.entity.position.y < feet.y + 1.05 && Date.now() < deadline) await c.wait(bot, 10)
      try {
        await bot.placeBlock(below, new c.Vec3(0, 1, 0))
      } catch (err) {
        // the server may place it without the update arriving in time, or drop the click: look, then try again
      } finally {
        bot.setControlState('jump', false)
      }
      const landing = Date.now() + 2000
      while (!bot.entity.onGround && Date.now() < landing) await c.wait(bot, 20)
      placed = PILLAR.has(bot.blockAt(feet)?.name)
    }
    if (!placed) c.fail(`Could not stack dirt to climb on at ${c.fmt(feet)}.`)
  }
}

// Climb back down a dirt pillar this bot stacked (digging it: the dirt comes back), to the ground it started on.
async function comeDown (bot) {
  const base = c.state(bot).pillarBase
  if (!base) return
  let dug = 0
  for (let i = 0; i < 32 && bot.entity.position.floored().y > base.y; i++) {
    c.checkInterrupt(bot)
    const below = bot.blockAt(bot.entity.position.floored().offset(0, -1, 0))
    if (below && PILLAR.has(below.name)) {
      await c.interruptible(bot, bot.dig(below, true), () => bot.stopDigging())
      dug++
    } else if (!below || below.boundingBox !== 'empty') {
      break // not my pillar
    }
    const y = bot.entity.position.y
    const deadline = Date.now() + 2000 // falling onto the next block down (or still falling after a jump)
    while (bot.entity.position.y > y - 0.9 && Date.now() < deadline) await c.wait(bot, 20)
  }
  c.state(bot).pillarBase = null // down, or off it some other way: either way no longer on it
  const at = bot.entity.position.floored()
  if (dug) c.say(bot, at.y <= base.y ? `Came down my dirt pillar (${dug} dug).` : `Came down ${dug} of my dirt pillar.`)
}

// Get within `reach` of `target` (eyes to its middle): walk there if a walk will do, else climb dirt beside it.
async function reachBlock (bot, target, reach, timeoutMs = 30000) {
  const near = () => move.eyeDistance(bot, target) <= reach
  if (near()) return
  if (c.state(bot).pillarBase) {
    await comeDown(bot) // off the last pillar first: no walk starts from its top
    if (near()) return
  }
  try {
    await walkTo(bot, new move.GoalReach(target, reach - 0.4), timeoutMs)
    return
  } catch (err) {
    if (!(err instanceof c.SkillFailure)) throw err
    if (!c.inventoryItem(bot, 'dirt')) {
      c.fail(`${err.message} (no dirt to climb on to reach ${c.fmt(target)} from ${c.fmt(bot.entity.position.floored())})`)
    }
  }
  let last = 'no open ground beside it'
  for (const spot of climbSpots(bot, target, reach).slice(0, SPOT_TRIES)) {
    try {
      await walkTo(bot, new move.goals.GoalBlock(spot.foot.x, spot.foot.y, spot.foot.z), timeoutMs)
    } catch (err) {
      if (!(err instanceof c.SkillFailure)) throw err
      last = err.message
      continue
    }
    c.state(bot).pillarBase = spot.foot
    await pillarUp(bot, spot.height)
    if (near()) return
    last = `still out of reach from ${c.fmt(bot.entity.position)}`
    await comeDown(bot)
  }
  c.fail(`Could not climb to reach ${c.fmt(target)} from ${c.fmt(bot.entity.position.floored())}: ${last}.`)
}

module.exports = { walkTo, reachBlock, comeDown }
