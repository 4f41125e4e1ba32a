'use strict'
// What the modes need to know about a bot's surroundings, gathered in one call every update tick.
// It runs 3.3 times a second for every agent, all on the bots' one Node thread: it must stay well under 1 ms.

const { blockWithin } = require('./block_scan')

const HOSTILE = new Set(['zombie', 'skeleton', 'creeper', 'spider', 'cave_spider', 'witch', 'enderman', 'slime',
  'drowned', 'husk', 'stray', 'phantom', 'pillager', 'vindicator', 'evoker', 'ravager', 'blaze', 'ghast',
  'magma_cube', 'silverfish', 'zombie_villager', 'piglin_brute', 'hoglin', 'zoglin', 'wither_skeleton', 'guardian',
  'elder_guardian', 'shulker', 'vex', 'warden', 'breeze', 'bogged'])
const HUNTABLE = new Set(['chicken', 'cow', 'pig', 'sheep', 'rabbit', 'mooshroom', 'salmon', 'cod', 'goat'])
const FALLING = new Set(['sand', 'red_sand', 'gravel', 'anvil', 'pointed_dripstone'])
const HOT = ['lava', 'fire', 'soul_fire', 'magma_block', 'campfire']
const TORCHES = ['torch', 'wall_torch']

// The nearest entity of each kind in KINDS, in one pass over the bot's entities (an observation asks for five
// kinds; with many bots on a server each bot sees every other one).
const KINDS = [
  ['hostile', e => e.kind === 'Hostile mobs' || HOSTILE.has(e.name), 16],
  ['huntable', e => HUNTABLE.has(e.name), 8],
  ['item', e => e.name === 'item', 8],
  ['player', e => e.type === 'player', 8],
  ['lookTarget', e => e.type === 'player' || e.type === 'animal' || e.type === 'mob', 16]
]

function nearestOfKinds (bot) {
  const best = KINDS.map(() => null)
  const bestDistance = KINDS.map(([, , range]) => range)
  const origin = bot.entity.position
  for (const id in bot.entities) {
    const e = bot.entities[id]
    if (e === bot.entity || !e.position) continue
    const d = e.position.distanceTo(origin)
    for (let k = 0; k < KINDS.length; k++) {
      if (d <= bestDistance[k] && KINDS[k][1](e)) { best[k] = e; bestDistance[k] = d }
    }
  }
  const found = {}
  KINDS.forEach(([kind], k) => {
    const e = best[k]
    found[kind] = e ? { id: e.id, name: e.name, username: e.username || null, distance: Math.round(bestDistance[k] * 10) / 10 } : null
  })
  return found
}

function observeJson (bot) {
  const pos = bot.entity.position
  const feet = bot.blockAt(pos.floored())
  const head = bot.blockAt(pos.floored().offset(0, 1, 0))
  const above = bot.blockAt(pos.floored().offset(0, 2, 0))
  const names = [feet?.name, head?.name]
  const hotNearby = blockWithin(bot, HOT, 2)
  const light = head ? (head.skyLight ?? 15) : 15
  const torchNearby = blockWithin(bot, TORCHES, 6)
  const nearest = nearestOfKinds(bot)
  return JSON.stringify({
    position: { x: pos.x, y: pos.y, z: pos.z },
    health: bot.health,
    food: bot.food,
    inWater: names.includes('water'),
    inLava: names.includes('lava') || names.includes('fire'),
    onFire: !!(bot.entity.metadata && (bot.entity.metadata[0] & 1)),
    hotNearby,
    fallingBlockAbove: !!(above && FALLING.has(above.name)),
    hostile: nearest.hostile,
    huntable: nearest.huntable,
    item: nearest.item,
    player: nearest.player,
    lookTarget: nearest.lookTarget,
    dark: light < 8 || (bot.time.timeOfDay > 13000 && bot.time.timeOfDay < 23000),
    torchNearby,
    hasTorch: bot.inventory.items().some(i => i.name === 'torch'),
    timeOfDay: bot.time.timeOfDay,
    skillReports: (bot.mindpy && bot.mindpy.reports) || 0 // what the skills have said so far (placed, broke...)
  })
}

// Jump while in water (the one reaction done here: it must keep happening every tick).
function setJump (bot, on) {
  bot.setControlState('jump', !!on)
  return true
}

async function lookAtEntity (bot, id) {
  const e = bot.entities[id]
  if (e) await bot.lookAt(e.position.offset(0, e.height || 1.6, 0))
  return true
}

// the kinds it looks for are exported too: benchmarks/js/observe_timing.js times the old way on the same kinds
module.exports = { observeJson, setJump, lookAtEntity, HOSTILE, HUNTABLE, FALLING, HOT }
