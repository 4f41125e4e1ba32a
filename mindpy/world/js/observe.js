'use strict'
// What the modes need to know about a bot's surroundings, gathered in one call every update tick.

const HOSTILE = new Set(['zombie', 'skeleton', 'creeper', 'spider', 'cave_spider', 'witch', 'enderman', 'slime',
  'drowned', 'husk', 'stray', 'phantom', 'pillager', 'vindicator', 'evoker', 'ravager', 'blaze', 'ghast',
  'magma_cube', 'silverfish', 'zombie_villager', 'piglin_brute', 'hoglin', 'zoglin', 'wither_skeleton', 'guardian',
  'elder_guardian', 'shulker', 'vex', 'warden', 'breeze', 'bogged'])
const HUNTABLE = new Set(['chicken', 'cow', 'pig', 'sheep', 'rabbit', 'mooshroom', 'salmon', 'cod', 'goat'])
const FALLING = new Set(['sand', 'red_sand', 'gravel', 'anvil', 'pointed_dripstone'])
const HOT = new Set(['lava', 'fire', 'soul_fire', 'magma_block', 'campfire'])

function nearestOf (bot, test, range) {
  let best = null
  let bestDistance = range
  const origin = bot.entity.position
  for (const e of Object.values(bot.entities)) {
    if (e === bot.entity || !e.position || !test(e)) continue
    const d = e.position.distanceTo(origin)
    if (d <= bestDistance) { best = e; bestDistance = d }
  }
  return best ? { id: best.id, name: best.name, username: best.username || null, distance: Math.round(bestDistance * 10) / 10 } : null
}

function observeJson (bot) {
  const pos = bot.entity.position
  const feet = bot.blockAt(pos.floored())
  const head = bot.blockAt(pos.floored().offset(0, 1, 0))
  const above = bot.blockAt(pos.floored().offset(0, 2, 0))
  const names = [feet?.name, head?.name]
  const hotNearby = !!bot.findBlock({ matching: b => HOT.has(b.name), maxDistance: 2 })
  const light = head ? (head.skyLight ?? 15) : 15
  const torchNearby = !!bot.findBlock({ matching: b => b.name === 'torch' || b.name === 'wall_torch', maxDistance: 6 })
  return JSON.stringify({
    position: { x: pos.x, y: pos.y, z: pos.z },
    health: bot.health,
    food: bot.food,
    inWater: names.includes('water'),
    inLava: names.includes('lava') || names.includes('fire'),
    onFire: !!(bot.entity.metadata && (bot.entity.metadata[0] & 1)),
    hotNearby,
    fallingBlockAbove: !!(above && FALLING.has(above.name)),
    hostile: nearestOf(bot, e => HOSTILE.has(e.name), 16),
    huntable: nearestOf(bot, e => HUNTABLE.has(e.name), 8),
    item: nearestOf(bot, e => e.name === 'item', 8),
    player: nearestOf(bot, e => e.type === 'player', 8),
    lookTarget: nearestOf(bot, e => e.type === 'player' || e.type === 'animal' || e.type === 'mob', 16),
    dark: light < 8 || (bot.time.timeOfDay > 13000 && bot.time.timeOfDay < 23000),
    torchNearby,
    hasTorch: bot.inventory.items().some(i => i.name === 'torch'),
    timeOfDay: bot.time.timeOfDay
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

module.exports = { observeJson, setJump, lookAtEntity }
