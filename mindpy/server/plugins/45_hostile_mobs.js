'use strict'
// Hostile mobs: zombie, skeleton, spider, creeper. Their bodies are 40_animals.js's mobs (health, hits, knockback,
// death, loot) and 42_animal_movement.js moves them; this plugin decides where they go, spawns them in the dark,
// despawns them far from players and burns zombies and skeletons in daylight. Their attacks: 46_mob_attacks.js.
//
// Spawning (plugin option `hostileMobs`, default on only in the 'normal' world; never on peaceful): every two
// seconds, for each player in survival or adventure, a spot 24-64 blocks away (vanilla: 24-128) on a solid block
// with two air blocks above, dark enough: night on the surface (time 13000-23000) or sky light 0 (caves) at any
// time, and no light-giving block within 7 blocks; at most 15 (`mobCap`) monsters within 128 blocks of that player.
// One mob per spawn, not vanilla's packs. Options for tests: `mobSpawnRate` (attempts per second per player,
// default 0.5), `mobSpawnDistance` ([min, max] blocks), `hostileMobKinds` (the kinds that spawn).
// /summon zombie|skeleton|spider|creeper works whatever the options (not on peaceful); `/difficulty peaceful`
// removes every monster.

const { Vec3 } = require('vec3')

// health; follow range (blocks); chase speed (blocks per second, about vanilla's); burns in daylight
const KINDS = {
  zombie: { health: 20, follow: 35, speed: 2.3, burns: true },
  skeleton: { health: 20, follow: 16, speed: 2.5, burns: true },
  spider: { health: 16, follow: 16, speed: 3.0, burns: false },
  creeper: { health: 20, follow: 16, speed: 2.5, burns: false }
}
const SPAWN_DISTANCE = [24, 64]
const SPAWN_RATE = 0.5 // attempts per second per player
const MOB_CAP = 15 // per player (vanilla: 70 over the loaded area)
const DESPAWN_FAR = 128 // no player nearer: gone at once
const DESPAWN_NEAR = 32 // no player nearer for DESPAWN_IDLE_MS: gone by chance, as vanilla does
const DESPAWN_IDLE_MS = 30000
const LIGHT_SCAN = 7 // a light-giving block within this many blocks makes a spot too bright to spawn
const NIGHT = [13000, 23000]
const SUNLIGHT_BURNS = t => t < 12500 || t >= 23500 // vanilla's undead burn from dawn to dusk
const BURN_DAMAGE = 1 // per second, as fire does
const RETARGET_MS = 500
const DETOUR_MS = 1000
const SKELETON_RANGE = [6, 12] // skeletons close in to 12 blocks and back off inside 6
const ON_FIRE = 0x01 // shared_flags

const between = ([lo, hi]) => lo + Math.random() * (hi - lo)

// Wrong options stop the server's start with one line naming the option (embedded.py shows it).
function checkOptions ({ on, rate, distance, kinds, cap }) {
  const fail = (text) => { throw new Error(text) }
  if (typeof on !== 'boolean') fail(`hostileMobs must be true or false, not ${JSON.stringify(on)}`)
  if (typeof rate !== 'number' || !(rate >= 0) || rate > 1000) fail(`mobSpawnRate must be a number of spawn attempts per second (0-1000), not ${JSON.stringify(rate)}`)
  const [lo, hi] = Array.isArray(distance) ? distance : []
  if (!Array.isArray(distance) || distance.length !== 2 || !(lo >= 1) || !(hi >= lo) || hi > 128) {
    fail(`mobSpawnDistance must be [min, max] blocks with 1 <= min <= max <= 128, not ${JSON.stringify(distance)}`)
  }
  if (!Array.isArray(kinds) || !kinds.length) fail(`hostileMobKinds must be a list of kinds, not ${JSON.stringify(kinds)}`)
  for (const kind of kinds) {
    if (!KINDS[kind]) fail(`hostileMobKinds: unknown kind ${JSON.stringify(kind)} (known: ${Object.keys(KINDS).join(', ')})`)
  }
  if (!Number.isInteger(cap) || cap < 0) fail(`mobCap must be a whole number of monsters per player, not ${JSON.stringify(cap)}`)
}

module.exports.server = function (serv, settings) {
  const registry = serv.registry
  const config = settings?.mindpy || {}
  const options = config.pluginOptions || {}
  const world = config.world ?? options.world
  const spawning = {
    on: options.hostileMobs ?? (world === 'normal'),
    rate: options.mobSpawnRate ?? SPAWN_RATE,
    distance: options.mobSpawnDistance ?? SPAWN_DISTANCE,
    kinds: options.hostileMobKinds ?? Object.keys(KINDS),
    cap: options.mobCap ?? MOB_CAP
  }
  checkOptions(spawning)
  const blocks = registry.blocks
  const lightBlocks = new Set(registry.blocksArray.filter(b => b.emitLight > 0).map(b => b.id))
  const sharedFlagsKey = 0

  const isSolid = (w, pos) => blocks[w.sync.getBlockType(pos)]?.boundingBox === 'block'
  const isAir = (w, pos) => blocks[w.sync.getBlockType(pos)]?.name?.endsWith('air')
  const loaded = (w, pos) => !!w.sync.getColumnAt(pos)
  const isOpen = (w, pos) => loaded(w, pos) && !isSolid(w, pos.floored()) && !isSolid(w, pos.floored().offset(0, 1, 0))
  const hostiles = () => [...serv.mindpyMobs].filter(m => m.mindpyMob.hostile && m.health > 0)
  const hunts = p => p.health > 0 && (p.gameMode === 0 || p.gameMode === 2)

  function spawnHostile (kind, w, position) {
    if (serv.difficulty === 0) throw new serv.mindpyCommands.UserError(`Cannot summon ${kind} on peaceful difficulty`)
    const spec = KINDS[kind]
    const mob = serv.mindpySpawnMob(kind, w, position, { health: spec.health })
    Object.assign(mob.mindpyMob, {
      hostile: kind, speed: spec.speed, stopAt: spec.stopAt ?? 1, maxDrop: 3, steer, nextTarget: 0, target: null, farSince: null
    })
    return mob
  }
  serv.mindpySummoners = serv.mindpySummoners || {}
  for (const kind of Object.keys(KINDS)) serv.mindpySummoners[kind] = (w, position) => spawnHostile(kind, w, position)

  // ---- where they go ------------------------------------------------------------------------------------------
  const canSeeSky = (w, pos) => {
    for (let y = Math.floor(pos.y) + 2; y < 320; y++) {
      const p = new Vec3(Math.floor(pos.x), y, Math.floor(pos.z))
      const name = blocks[w.sync.getBlockType(p)]?.name
      if (name && !name.endsWith('air')) return false
    }
    return true
  }
  const isDaylight = () => SUNLIGHT_BURNS(serv.time)
  const isNight = () => serv.time >= NIGHT[0] && serv.time <= NIGHT[1]

  // Spiders hunt in the dark, or a player who hit them; the others always.
  function wantsToHunt (mob, s) {
    if (s.hostile !== 'spider') return true
    if (Date.now() - (s.hitByPlayerAt || -Infinity) < 30000) return true
    return !isDaylight() || mob.world.sync.getSkyLight(mob.position.floored()) === 0
  }

  function pickTarget (mob, s) {
    if (!wantsToHunt(mob, s)) return null
    let best = null
    let bestDistance = KINDS[s.hostile].follow
    for (const player of serv.players) {
      if (player.world !== mob.world || !hunts(player)) continue
      const d = player.position.distanceTo(mob.position)
      if (d <= bestDistance) { best = player; bestDistance = d }
    }
    return best
  }

  // Called by the movement plugin every tick: set s.dir (null: stand still) and return true, or return false to
  // let the mob wander like an animal.
  function steer (mob, s, now) {
    if (now >= s.nextTarget) {
      s.nextTarget = now + RETARGET_MS
      s.target = pickTarget(mob, s)
      if (s.target) serv.mindpyFace(mob, s.target.position.minus(mob.position))
      // skeletons hold their ground while they can shoot (checked here, not every tick: a ray of a few dozen blocks)
      s.seesTarget = s.hostile === 'skeleton' && !!s.target && serv.mindpyCanSee(mob, s.target)
    }
    const target = s.target
    if (!target || !hunts(target) || !serv.players.includes(target)) { s.target = null; return false }
    if (s.fuseStart) { s.dir = null; return true } // a swelling creeper stands still (46_mob_attacks.js)
    const away = target.position.minus(mob.position)
    const distance = Math.hypot(away.x, away.z)
    let dir = distance > 0.01 ? new Vec3(away.x / distance, 0, away.z / distance) : null
    if (s.seesTarget) {
      if (distance < SKELETON_RANGE[0]) dir = dir && dir.scaled(-1) // back off
      else if (distance <= SKELETON_RANGE[1]) dir = null // hold and shoot
    } else if (distance < s.stopAt) {
      dir = null // close enough to hit (46_mob_attacks.js sets stopAt by reach)
    }
    // blocked by a wall or an edge: go sideways for a while, to the side that was free
    if (dir && now - (s.blockedAt || -Infinity) < 100 && !(s.detourUntil > now)) {
      const first = Math.random() < 0.5 ? 1 : -1
      const sides = [first, -first].map(side => new Vec3(-dir.z * side, 0, dir.x * side))
      s.detour = sides.find(side => isOpen(mob.world, mob.position.plus(side))) || sides[0]
      s.detourUntil = now + DETOUR_MS
    }
    if (dir && s.detourUntil > now) dir = s.detour
    s.dir = dir
    return true
  }
  serv.mindpyHostileKinds = KINDS // 46_mob_attacks.js sets each kind's stopAt (where it stops to hit)

  // ---- spawning ---------------------------------------------------------------------------------------------
  function litNearby (w, pos) {
    const p = new Vec3(0, 0, 0)
    for (p.x = pos.x - LIGHT_SCAN; p.x <= pos.x + LIGHT_SCAN; p.x++) {
      for (p.z = pos.z - LIGHT_SCAN; p.z <= pos.z + LIGHT_SCAN; p.z++) {
        if (!loaded(w, p)) continue
        for (p.y = pos.y - 4; p.y <= pos.y + 4; p.y++) if (lightBlocks.has(w.sync.getBlockType(p))) return true
      }
    }
    return false
  }

  // A spot where a monster may appear: feet at `feet` (block position), solid below, two air blocks, dark.
  function spawnable (w, feet) {
    if (!loaded(w, feet) || !isSolid(w, feet.offset(0, -1, 0))) return false
    if (!isAir(w, feet) || !isAir(w, feet.offset(0, 1, 0))) return false
    const dark = isNight() || w.sync.getSkyLight(feet) === 0
    return dark && w.sync.getBlockLight(feet) === 0 && !litNearby(w, feet)
  }

  function trySpawnNear (player) {
    const w = player.world
    const angle = Math.random() * Math.PI * 2
    const r = between(spawning.distance)
    const x = Math.floor(player.position.x + Math.cos(angle) * r)
    const z = Math.floor(player.position.z + Math.sin(angle) * r)
    // a random height near the player's, then the nearest floor below it (caves under the surface count too)
    let y = Math.floor(player.position.y) + Math.floor(Math.random() * 33) - 16
    if (!loaded(w, new Vec3(x, y, z))) return null
    while (y > -64 && !isSolid(w, new Vec3(x, y - 1, z))) y--
    const feet = new Vec3(x, y, z)
    if (!spawnable(w, feet)) return null
    if (serv.players.some(p => p.world === w && p.position.distanceTo(feet) < spawning.distance[0])) return null
    const kind = spawning.kinds[Math.floor(Math.random() * spawning.kinds.length)]
    return spawnHostile(kind, w, feet.offset(0.5, 0, 0.5))
  }

  const maxEntities = settings?.['max-entities'] || 200
  let credit = 0
  serv.on('tick', () => {
    if (!spawning.on || serv.difficulty === 0) return
    credit += spawning.rate / 20
    if (credit < 1) return
    const attempts = Math.floor(credit)
    credit -= attempts
    const mobs = hostiles()
    for (const player of serv.players) {
      if (!hunts(player) || !player.world) continue
      const near = mobs.filter(m => m.world === player.world && m.position.distanceTo(player.position) < DESPAWN_FAR).length
      for (let i = 0; i < attempts && near + i < spawning.cap; i++) {
        if (Object.keys(serv.entities).length >= maxEntities) return
        try {
          const mob = trySpawnNear(player)
          if (mob) mobs.push(mob)
        } catch (err) {
          console.error('[mindpy] hostile spawning:', err)
        }
      }
    }
  })

  // ---- once a second: despawning and burning ------------------------------------------------------------------
  const despawn = mob => serv.mindpyRemoveMob(mob)

  function setOnFire (mob, burning) {
    const s = mob.mindpyMob
    if (!!s.burning === burning) return
    s.burning = burning
    mob.sendMetadata([{ key: sharedFlagsKey, type: 'byte', value: burning ? ON_FIRE : 0 }]) // typed per version
  }

  serv.on('tick', (delta, count) => {
    if (count % 20 !== 0) return
    const now = Date.now()
    for (const mob of hostiles()) {
      const s = mob.mindpyMob
      let nearest = Infinity
      for (const p of serv.players) if (p.world === mob.world) nearest = Math.min(nearest, p.position.distanceTo(mob.position))
      if (nearest > DESPAWN_FAR) { despawn(mob); continue }
      if (nearest > DESPAWN_NEAR) {
        s.farSince = s.farSince ?? now
        if (now - s.farSince > DESPAWN_IDLE_MS && Math.random() < 1 / 40) { despawn(mob); continue }
      } else {
        s.farSince = null
      }
      const burns = KINDS[s.hostile].burns && isDaylight() && canSeeSky(mob.world, mob.position)
      setOnFire(mob, burns)
      if (burns) mob.takeDamage({ damage: BURN_DAMAGE, type: 'on_fire', knockback: false })
    }
  })

  // ---- /difficulty with vanilla's names; peaceful removes every monster ----------------------------------------
  const DIFFICULTIES = ['peaceful', 'easy', 'normal', 'hard']
  serv.once('pluginsReady', () => {
    const { UserError } = serv.mindpyCommands
    serv.commands.add({
      base: 'difficulty',
      info: 'Set the difficulty (peaceful removes hostile mobs)',
      usage: '/difficulty <peaceful|easy|normal|hard>',
      op: true,
      parse: str => str.trim(),
      action (text) {
        if (!text) return `The difficulty is ${DIFFICULTIES[serv.difficulty ?? 1]}`
        const level = /^[0-3]$/.test(text) ? Number(text) : DIFFICULTIES.indexOf(text.toLowerCase())
        if (level < 0) throw new UserError(`Unknown difficulty '${text}' (peaceful, easy, normal or hard)`)
        serv.difficulty = level
        serv._writeAll('difficulty', { difficulty: level, difficultyLocked: false })
        if (level === 0) for (const mob of hostiles()) despawn(mob)
        return `The difficulty has been set to ${DIFFICULTIES[level]}`
      }
    })
  })
}
