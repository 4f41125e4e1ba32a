'use strict'
// Moving around: go to positions, players, blocks and entities; follow; move away; stay; look.
// A plugin: inject(bot) registers these skills in bot.skills; goto() and goals are for the other concerns.

const { pathfinder, Movements, goals } = require('mineflayer-pathfinder')
const c = require('./common')
const core = require('./core')

function ensurePathfinder (bot) {
  if (!bot.pathfinder) bot.loadPlugin(pathfinder)
  if (!c.state(bot).movements) {
    const movements = new Movements(bot)
    movements.allowSprinting = true
    movements.canOpenDoors = true
    // blocks the bot may stand on when pillaring or bridging
    movements.scafoldingBlocks = ['dirt', 'cobblestone', 'stone', 'netherrack', 'oak_planks']
      .map(name => bot.registry.itemsByName[name]?.id).filter(id => id !== undefined)
    c.state(bot).movements = movements
  }
  for (const name of c.state(bot).protectedBlocks || []) { // set by core.setProtectedBlocks, maybe after the start
    const block = bot.registry.blocksByName[name]
    if (block) c.state(bot).movements.blocksCantBreak.add(block.id)
  }
  bot.pathfinder.setMovements(c.state(bot).movements)
}

// Go to a goal; an interrupt stops the pathfinder; a time limit gives up plainly.
async function goto (bot, goal, timeoutMs = 60000) {
  ensurePathfinder(bot)
  let timer
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => { bot.pathfinder.stop(); reject(new c.SkillFailure('Took too long to get there.')) }, timeoutMs)
  })
  try {
    // The pathfinder counts a goal reached once the bot's feet are in the goal block, which can be mid-jump
    // (pillaring up, jumping onto a ledge); where the bot comes to rest elsewhere, it paths again from there.
    for (let attempt = 1; ; attempt++) {
      await c.interruptible(bot, Promise.race([pathTo(bot, goal), timeout]), () => bot.pathfinder.stop())
      await landed(bot)
      if (goal.isEnd(bot.entity.position.floored())) break
      if (attempt === 3) c.fail(`Could not get all the way there: stopped at ${c.fmt(bot.entity.position)}.`)
    }
  } catch (err) {
    if (err instanceof c.Interrupted || err instanceof c.SkillFailure) throw err
    // stopping the pathfinder on interrupt may reject the path before the interrupt poll sees the flag
    if (c.state(bot).interrupted) throw new c.Interrupted()
    c.fail(`Could not find a path there: ${err.message}`)
  } finally {
    clearTimeout(timer)
  }
}

// Follow the pathfinder until it reaches `goal` or gives up. Not bot.pathfinder.goto(): that one resolves, as if
// arrived, on any path update with an empty path, and the first update is the best path found in one 40 ms tick of
// search; on a loaded machine that is often "stay here", and the bot never moves. The pathfinder itself searches
// on in the next ticks, so this waits for the goal, a failed search, or a stop.
// The pathfinder also stalls: once it has walked a path whose last node is in the goal but the bot, standing
// within 0.35 of that node, is counted in a neighbouring block outside the goal, it searches again only once, and
// then stands still for good. A bot that has stood still with no path for STALL_TICKS game ticks after a finished
// search returns, and goto() paths again from where it stands.
const STALL_TICKS = 20

function pathTo (bot, goal) {
  return new Promise((resolve, reject) => {
    let searching = true
    let stillTicks = 0
    const listeners = {
      goal_reached: () => done(),
      path_update: results => {
        searching = results.status === 'partial'
        if (results.status === 'noPath') done(new Error('no path to the goal'))
        else if (results.status === 'timeout') done(new Error('the path search took too long'))
        else if (results.status === 'success' && results.path.length === 0) done() // already there
      },
      goal_updated: newGoal => { if (newGoal !== goal) done(new Error('the goal was changed')) },
      path_stop: () => done(new Error('the path was stopped')),
      physicsTick: () => {
        const still = !searching && !bot.pathfinder.isMoving() && !bot.pathfinder.isMining() &&
          !bot.pathfinder.isBuilding()
        stillTicks = still ? stillTicks + 1 : 0
        if (stillTicks >= STALL_TICKS) done()
      }
    }
    function done (err) {
      for (const [event, listener] of Object.entries(listeners)) bot.removeListener(event, listener)
      if (err) reject(err)
      else resolve()
    }
    for (const [event, listener] of Object.entries(listeners)) bot.on(event, listener)
    bot.pathfinder.setGoal(goal)
  })
}

// Wait (briefly) until the bot stands on something: the next skill and the position reported start from there.
async function landed (bot, limitMs = 1500) {
  const end = Date.now() + limitMs
  while (!bot.entity.onGround && !bot.entity.isInWater && Date.now() < end) await c.wait(bot, 50)
}

async function goToCoordinates (bot, x, y, z, closeness = 2) {
  await goto(bot, new goals.GoalNear(x, y, z, closeness))
  c.say(bot, `You have reached ${c.fmt({ x, y, z })}.`)
  return true
}

async function goToPlayer (bot, name, closeness = 3) {
  if (name === bot.username) c.fail('You are already yourself; pick another player.')
  const target = c.playerEntity(bot, name)
  if (!target) c.fail(`Could not find ${name}: they are not nearby or not online.`)
  await goto(bot, new goals.GoalFollow(target, closeness), 120000)
  c.say(bot, `You have reached ${name}.`)
  return true
}

// Follow until interrupted (the action ends only when stopped).
async function followPlayer (bot, name, distance = 4) {
  const target = c.playerEntity(bot, name)
  if (!target) c.fail(`Could not find ${name}: they are not nearby or not online.`)
  ensurePathfinder(bot)
  bot.pathfinder.setGoal(new goals.GoalFollow(target, distance), true)
  c.say(bot, `You are now following ${name}.`)
  try {
    while (true) {
      await c.wait(bot, 500)
      if (!c.playerEntity(bot, name)) {
        c.say(bot, `${name} is out of sight; stopped following.`)
        return false
      }
    }
  } finally {
    bot.pathfinder.setGoal(null)
  }
}

async function moveAway (bot, distance) {
  const start = bot.entity.position.clone()
  await goto(bot, new goals.GoalInvert(new goals.GoalNear(start.x, start.y, start.z, distance)))
  c.say(bot, `Moved away to ${c.fmt(bot.entity.position)}.`)
  return true
}

async function searchForBlock (bot, type, minDistance = 2, range = 64) {
  const block = c.nearestBlock(bot, [type], range)
  if (!block) c.fail(`Could not find any ${type} within ${range} blocks.`)
  c.say(bot, `Found ${type} at ${c.fmt(block.position)}.`)
  await goto(bot, new goals.GoalNear(block.position.x, block.position.y, block.position.z, minDistance))
  return true
}

async function searchForEntity (bot, type, minDistance = 2, range = 64) {
  const entity = bot.nearestEntity(e => e.name === type && e.position.distanceTo(bot.entity.position) <= range)
  if (!entity) c.fail(`Could not find any ${type} within ${range} blocks.`)
  c.say(bot, `Found ${type} ${Math.round(entity.position.distanceTo(bot.entity.position))} blocks away.`)
  await goto(bot, new goals.GoalFollow(entity, minDistance))
  return true
}

// Run from an entity until it is `distance` blocks away.
async function avoidEntity (bot, id, distance = 16) {
  const entity = bot.entities[id]
  if (!entity) c.fail(`There is no entity ${id} nearby.`)
  await goto(bot, new goals.GoalInvert(new goals.GoalFollow(entity, distance)), 30000)
  c.say(bot, `Got away from the ${entity.name}.`)
  return true
}

async function goToSurface (bot) {
  const pos = bot.entity.position.floored()
  for (let y = 319; y > pos.y; y--) {
    const block = bot.blockAt(new c.Vec3(pos.x, y, pos.z))
    if (block && block.name !== 'air' && block.boundingBox === 'block') {
      await goto(bot, new goals.GoalBlock(pos.x, y + 1, pos.z))
      c.say(bot, `Went to the surface at y=${y + 1}.`)
      return true
    }
  }
  c.say(bot, 'Already at the surface.')
  return true
}

async function stay (bot, seconds = -1) {
  // NaN fails every comparison: without this check it ended at once, and -5 or 1e308 stood still for good
  if (typeof seconds !== 'number' || !(seconds === -1 || (seconds >= 0 && seconds <= 86400))) {
    c.fail(`stay takes a number of seconds from 0 to 86400, or -1 to stay until interrupted; got ${seconds}.`)
  }
  const ms = seconds < 0 ? Infinity : seconds * 1000
  const end = Date.now() + ms
  while (Date.now() < end) await c.wait(bot, Math.min(1000, end - Date.now()))
  c.say(bot, `Stayed for ${seconds} seconds.`)
  return true
}

async function lookAtPlayer (bot, name, direction = 'at') {
  const target = c.playerEntity(bot, name)
  if (!target) c.fail(`Could not find ${name}.`)
  if (direction === 'with') {
    await bot.look(target.yaw, target.pitch, true)
    c.say(bot, `Looking in the same direction as ${name}.`)
  } else {
    await bot.lookAt(target.position.offset(0, target.height, 0), true)
    c.say(bot, `Looking at ${name}.`)
  }
  return true
}

async function lookAtPosition (bot, x, y, z) {
  await bot.lookAt(new c.Vec3(x, y, z), true)
  c.say(bot, `Looking at ${c.fmt({ x, y, z })}.`)
  return true
}

function inject (bot) {
  bot.loadPlugin(core.inject)
  bot.skills.register({
    goToCoordinates,
    goToPlayer,
    followPlayer,
    moveAway,
    searchForBlock,
    searchForEntity,
    goToSurface,
    avoidEntity,
    stay,
    lookAtPlayer,
    lookAtPosition
  })
}

// Stand where the eyes are within `reach` of a block's middle, not inside that block: to place or break it. Unlike
// GoalNear, which measures from the feet, this counts a spot on top of other blocks as near a high block, and a
// spot at the foot of a tower as near its third block.
const EYE_HEIGHT = 1.62
class GoalReach extends goals.Goal {
  constructor (target, reach) {
    super()
    this.target = target.floored()
    this.reachSq = reach * reach
  }

  heuristic (node) {
    const dx = this.target.x - node.x
    const dy = this.target.y - node.y - 1
    const dz = this.target.z - node.z
    return Math.sqrt(dx * dx + dz * dz) + Math.abs(dy)
  }

  isEnd (node) {
    const t = this.target
    if (node.x === t.x && node.z === t.z && (node.y === t.y || node.y + 1 === t.y)) return false
    const dx = t.x - node.x
    const dy = t.y + 0.5 - (node.y + EYE_HEIGHT)
    const dz = t.z - node.z
    return dx * dx + dy * dy + dz * dz <= this.reachSq
  }
}

// From the bot's eyes to the middle of the block at `target`.
function eyeDistance (bot, target) {
  return bot.entity.position.offset(0, EYE_HEIGHT, 0).distanceTo(target.floored().offset(0.5, 0.5, 0.5))
}

module.exports = { inject, ensurePathfinder, goto, goals, GoalReach, eyeDistance }
