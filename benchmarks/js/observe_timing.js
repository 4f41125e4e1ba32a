'use strict'
// Times the modes' observation inside the bots' Node process, the way it was (two mineflayer findBlock scans and
// five passes over the entities) against the way it is (mindpy/world/js/observe.js), on the same bots.

const path = require('path')
const observe = require(path.join(__dirname, '../../mindpy/world/js/observe.js'))
const { blockWithin } = require(path.join(__dirname, '../../mindpy/world/js/block_scan.js'))

const { HOSTILE, HUNTABLE, FALLING } = observe
const HOT = new Set(observe.HOT)  // findBlock's matcher asks per block

// ---- the observation as it was before block_scan.js ------------------------------------------------------------
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

const hotByFindBlock = bot => !!bot.findBlock({ matching: b => HOT.has(b.name), maxDistance: 2 })
const torchByFindBlock = bot => !!bot.findBlock({ matching: b => b.name === 'torch' || b.name === 'wall_torch', maxDistance: 6 })

function oldObserveJson (bot) {
  const pos = bot.entity.position
  const feet = bot.blockAt(pos.floored())
  const head = bot.blockAt(pos.floored().offset(0, 1, 0))
  const above = bot.blockAt(pos.floored().offset(0, 2, 0))
  const names = [feet?.name, head?.name]
  const hotNearby = hotByFindBlock(bot)
  const light = head ? (head.skyLight ?? 15) : 15
  const torchNearby = torchByFindBlock(bot)
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

// ---- what is timed ------------------------------------------------------------------------------------------------
const PARTS = {
  'observation, before': oldObserveJson,
  'observation, now': observe.observeJson,
  'hot blocks within 2, findBlock': hotByFindBlock,
  'hot blocks within 2, block_scan': bot => blockWithin(bot, [...HOT], 2),
  'torches within 6, findBlock': torchByFindBlock,
  'torches within 6, block_scan': bot => blockWithin(bot, ['torch', 'wall_torch'], 6)
}

// {part: ms per call} over `rounds` calls per bot, the parts interleaved round by round so that load on the machine
// falls on all of them alike. Also checks that before and now answer the same (the position aside).
function timeParts (bots, rounds) {
  const total = Object.fromEntries(Object.keys(PARTS).map(k => [k, 0n]))
  for (let i = 0; i < rounds; i++) {
    for (const [name, fn] of Object.entries(PARTS)) {
      const t = process.hrtime.bigint()
      for (const bot of bots) fn(bot)
      total[name] += process.hrtime.bigint() - t
    }
  }
  const calls = rounds * bots.length
  const msPerCall = Object.fromEntries(Object.entries(total).map(([k, ns]) => [k, Number(ns) / 1e6 / calls]))
  const differ = bots.filter(bot => oldObserveJson(bot) !== observe.observeJson(bot)).map(bot => bot.username)
  return JSON.stringify({ msPerCall, entities: bots.map(b => Object.keys(b.entities).length), differ })
}

module.exports = { timeParts, oldObserveJson }
