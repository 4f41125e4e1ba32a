'use strict'
// What hostile mobs (45_hostile_mobs.js) do to the player they chase, and the damage to players that comes of it.
// - Zombies and spiders hit within vanilla's melee reach (their hitbox grown by 0.828 blocks, 1.20.5+) once a
//   second: 3 and 2 health points on normal (easy: half plus one, hard: times 1.5), with a knockback.
// - Skeletons shoot an arrow every 2 s at a player they can see within 15 blocks. The arrow is a real arrow entity
//   that flies (32 blocks per second, gravity, a little spread) and is checked each tick against blocks and players'
//   hitboxes along its path: it hurts the first player it meets (3-4 points on normal), stops in a block, and is
//   removed (no picking it up).
// - Creepers within 3 blocks of their target hiss and swell, and explode after 1.5 s unless the target got 7
//   blocks away. The explosion (vanilla's power 3) hurts players and mobs within 6 blocks by distance and breaks
//   the blocks around it by their blast resistance (a third of them drop); the creeper is gone without loot.
// Players are hurt as by any damage: health update, hurt animation and sound for everyone near, half a second of
// invulnerability, death and respawn (11_players.js).

const path = require('path')
const { Vec3 } = require('vec3')
const { metadataKey } = require(path.join(__dirname, '..', 'js', 'lib', 'metadata.js'))
const UUID = require('uuid-1345')

const MOB_REACH_GROWTH = 0.828
const MELEE = { zombie: { damage: 3, cooldownMs: 1000 }, spider: { damage: 2, cooldownMs: 1000 } }
const PLAYER_WIDTH = 0.6
const PLAYER_HEIGHT = 1.8
const PLAYER_INVULNERABLE_MS = 500
const KNOCKBACK = 0.4 // blocks per tick, away from the attacker (vanilla's strength for a plain hit)
const SHOT = { range: 15, cooldownMs: 2000, speed: 32, gravity: 20, spread: 0.05, damage: [3, 4], lifeMs: 3000 }
const CREEPER = { start: 3, cancel: 7, fuseMs: 1500, power: 3 }
const BLOCK_DROP_CHANCE = 1 / CREEPER.power

module.exports.server = function (serv) {
  const registry = serv.registry
  const blocks = registry.blocks
  const Block = require('prismarine-block')(registry)
  const solidAt = (world, pos) => {
    const p = pos.floored()
    return !world.sync.getColumnAt(p) || blocks[world.sync.getBlockType(p)]?.boundingBox === 'block'
  }

  // Melee mobs stop just inside their reach of a player (45_hostile_mobs.js reads stopAt).
  const reachOf = kind => (registry.entitiesByName[kind].width / 2) + MOB_REACH_GROWTH + PLAYER_WIDTH / 2
  for (const kind of Object.keys(serv.mindpyHostileKinds)) serv.mindpyHostileKinds[kind].stopAt = MELEE[kind] ? reachOf(kind) * 0.8 : 1

  // Is nothing solid between the mob's eyes and the player's?
  serv.mindpyCanSee = (mob, player) => {
    const from = mob.position.offset(0, (registry.entitiesByName[mob.name]?.height || 1.8) * 0.85, 0)
    const to = player.position.offset(0, 1.62, 0)
    const steps = Math.ceil(from.distanceTo(to) / 0.25)
    for (let i = 1; i < steps; i++) if (solidAt(mob.world, from.plus(to.minus(from).scaled(i / steps)))) return false
    return true
  }

  // ---- hurting players ---------------------------------------------------------------------------------------
  // vanilla's difficulty scaling of damage dealt to players by mobs and explosions
  function scaled (damage) {
    const difficulty = serv.difficulty ?? 1
    if (difficulty === 0) return 0
    if (difficulty === 1) return Math.min(damage / 2 + 1, damage)
    if (difficulty === 3) return damage * 1.5
    return damage
  }

  // Hurt `player` by `damage` (before difficulty scaling), shown as damage `type`; `from` (a position) pushes the
  // player away with `knockback` blocks per tick. Returns the damage dealt.
  serv.mindpyHurtPlayer = (player, damage, { attacker = null, type = 'mob_attack', from = null, knockback = KNOCKBACK } = {}) => {
    if (!(player.health > 0) || (player.gameMode !== 0 && player.gameMode !== 2)) return 0
    const state = player.mindpyHurtState || (player.mindpyHurtState = { lastHurt: 0, lastDamage: 0 })
    const now = Date.now()
    let dealt = scaled(damage)
    if (now - state.lastHurt < PLAYER_INVULNERABLE_MS) {
      if (dealt <= state.lastDamage) return 0
      const full = dealt
      dealt -= state.lastDamage
      state.lastDamage = full
    } else {
      state.lastHurt = now
      state.lastDamage = dealt
    }
    if (dealt <= 0) return 0
    serv.mindpyShowHurt(player, type, attacker)
    serv.playSound('game.player.hurt', player.world, player.position)
    if (from && knockback) {
      const away = player.position.minus(from)
      const length = Math.hypot(away.x, away.z) || 1
      const v = new Vec3(away.x / length * knockback, Math.min(0.4, knockback), away.z / length * knockback)
      player._client.write('entity_velocity', {
        entityId: player.id, velocity: v.scaled(8000).floored(), velocityX: Math.floor(v.x * 8000), velocityY: Math.floor(v.y * 8000), velocityZ: Math.floor(v.z * 8000)
      })
    }
    const health = Math.max(0, player.health - dealt)
    player.updateHealth(health)
    if (health <= 0) player._writeOthersNearby('entity_status', { entityId: player.id, entityStatus: 3 })
    return dealt
  }

  // ---- melee -------------------------------------------------------------------------------------------------
  function inReach (mob, player) {
    const height = registry.entitiesByName[mob.name]?.height || 1.8
    const overlapY = player.position.y < mob.position.y + height + MOB_REACH_GROWTH &&
      player.position.y + PLAYER_HEIGHT > mob.position.y - MOB_REACH_GROWTH
    const d = Math.hypot(player.position.x - mob.position.x, player.position.z - mob.position.z)
    return overlapY && d <= reachOf(mob.name)
  }

  function melee (mob, s, target, now) {
    const spec = MELEE[s.hostile]
    if (now - (s.lastAttack || 0) < spec.cooldownMs || !inReach(mob, target) || !serv.mindpyCanSee(mob, target)) return
    s.lastAttack = now
    mob._writeOthersNearby('animation', { entityId: mob.id, animation: 0 }) // swing arm
    serv.mindpyHurtPlayer(target, spec.damage, { attacker: mob, from: mob.position })
  }

  // ---- skeletons' arrows -----------------------------------------------------------------------------------------
  const arrows = new Set()
  const arrowType = registry.entitiesByName.arrow.id

  function shoot (mob, s, target, now) {
    if (now - (s.lastShot || 0) < SHOT.cooldownMs) return
    if (mob.position.distanceTo(target.position) > SHOT.range || !serv.mindpyCanSee(mob, target)) return
    s.lastShot = now
    const from = mob.position.offset(0, 1.5, 0)
    const aim = target.position.offset(0, PLAYER_HEIGHT / 3, 0)
    const horizontal = Math.hypot(aim.x - from.x, aim.z - from.z)
    // vanilla aims a fifth of the distance high to make up for the drop
    const dir = new Vec3(aim.x - from.x, aim.y - from.y + horizontal * 0.2, aim.z - from.z).normalize()
    const noisy = dir.offset((Math.random() - 0.5) * SHOT.spread, (Math.random() - 0.5) * SHOT.spread, (Math.random() - 0.5) * SHOT.spread).normalize()
    const arrow = serv.initEntity('object', arrowType, mob.world, from)
    arrow.name = 'arrow'
    arrow.uuid = UUID.v4()
    arrow.velocity = noisy.scaled(SHOT.speed)
    arrow.data = mob.id + 1 // the shooter, "id + 1"
    arrow.pitch = 0
    arrow.headPitch = 0
    arrow.yaw = 0
    arrow.mindpyArrow = { shooter: mob, bornAt: now, stuckAt: null }
    arrow.updateAndSpawn()
    arrows.add(arrow)
    serv.playSound('entity.skeleton.shoot', mob.world, mob.position)
  }

  function hitsPlayer (arrow, a, b) {
    for (const player of serv.players) {
      if (player.world !== arrow.world || !(player.health > 0)) continue
      const min = player.position.offset(-PLAYER_WIDTH / 2 - 0.25, -0.25, -PLAYER_WIDTH / 2 - 0.25)
      const max = player.position.offset(PLAYER_WIDTH / 2 + 0.25, PLAYER_HEIGHT + 0.25, PLAYER_WIDTH / 2 + 0.25)
      const steps = Math.max(1, Math.ceil(a.distanceTo(b) / 0.2))
      for (let i = 0; i <= steps; i++) {
        const p = a.plus(b.minus(a).scaled(i / steps))
        if (p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y && p.z >= min.z && p.z <= max.z) return player
      }
    }
    return null
  }

  function removeArrow (arrow) {
    arrows.delete(arrow)
    for (const player of arrow.getNearbyPlayers()) player.nearbyEntities = player.nearbyEntities.filter(e => e !== arrow)
    arrow.destroy()
  }

  function flyArrow (arrow, dt, now) {
    const a = arrow.mindpyArrow
    if (now - a.bornAt > SHOT.lifeMs || (a.stuckAt && now - a.stuckAt > 1000)) return removeArrow(arrow)
    if (a.stuckAt) return
    const from = arrow.position
    arrow.velocity.y -= SHOT.gravity * dt
    let to = from.plus(arrow.velocity.scaled(dt))
    const steps = Math.max(1, Math.ceil(from.distanceTo(to) / 0.2))
    for (let i = 1; i <= steps; i++) { // stop at the first solid block on the way
      const p = from.plus(to.minus(from).scaled(i / steps))
      if (solidAt(arrow.world, p)) { to = from.plus(to.minus(from).scaled((i - 1) / steps)); a.stuckAt = now; break }
    }
    const victim = hitsPlayer(arrow, from, to)
    if (victim) {
      const [lo, hi] = SHOT.damage
      serv.mindpyHurtPlayer(victim, lo + Math.floor(Math.random() * (hi - lo + 1)), { attacker: a.shooter, type: 'arrow', from })
      return removeArrow(arrow)
    }
    if (a.stuckAt) arrow.velocity = new Vec3(0, 0, 0)
    arrow.sendPosition(to, !!a.stuckAt).catch(err => console.error('[mindpy] arrow:', err))
  }

  // ---- creepers ------------------------------------------------------------------------------------------------
  const swellKey = metadataKey(registry, 'creeper', 'swell_dir')

  function setSwelling (mob, on) {
    if (swellKey >= 0) mob.sendMetadata([{ key: swellKey, type: 'int', value: on ? 1 : -1 }]) // typed per version
  }

  function creeper (mob, s, target, now) {
    const d = mob.position.distanceTo(target.position)
    if (!s.fuseStart) {
      if (d > CREEPER.start) return
      s.fuseStart = now
      setSwelling(mob, true)
      serv.playSound('entity.creeper.primed', mob.world, mob.position)
    } else if (d > CREEPER.cancel) {
      s.fuseStart = null
      setSwelling(mob, false)
    } else if (now - s.fuseStart >= CREEPER.fuseMs) {
      explode(mob).catch(err => console.error('[mindpy] explosion:', err))
    }
  }

  // vanilla's damage for an entity at `distance` of an explosion of `power`, seen in full
  function explosionDamage (distance, power) {
    const impact = 1 - distance / (2 * power)
    return impact <= 0 ? 0 : Math.floor((impact * impact + impact) / 2 * 7 * 2 * power + 1)
  }

  async function explode (mob) {
    const world = mob.world
    const center = mob.position.offset(0, 0.85, 0)
    serv.mindpyRemoveMob(mob) // gone at once, without loot
    serv.playSound('entity.generic.explode', world, center, { radius: 64 })
    for (const player of serv.players) {
      if (player.world !== world) continue
      const distance = player.position.offset(0, 0.9, 0).distanceTo(center)
      const damage = explosionDamage(distance, CREEPER.power)
      const knockback = 1 - distance / (2 * CREEPER.power) // vanilla: the blast's impact, in blocks per tick
      if (damage > 0) serv.mindpyHurtPlayer(player, damage, { attacker: mob, type: 'explosion', from: center, knockback })
    }
    for (const other of [...serv.mindpyMobs]) {
      if (other.world !== world || other === mob) continue
      const damage = explosionDamage(other.position.distanceTo(center), CREEPER.power)
      if (damage > 0) other.takeDamage({ damage, attacker: mob, unblockable: true, type: 'explosion' })
    }
    await breakBlocks(world, center, CREEPER.power)
  }

  // Blocks within reach of the blast: each breaks when the blast (power, 70-130 % by chance) outlasts the distance
  // and its resistance, a simpler rule than vanilla's rays that gives about the same crater.
  async function breakBlocks (world, center, power) {
    const r = Math.ceil(power)
    const c = center.floored()
    const broken = new Set()
    for (let x = -r; x <= r; x++) {
      for (let y = -r; y <= r; y++) {
        for (let z = -r; z <= r; z++) {
          const pos = c.offset(x, y, z)
          if (!world.sync.getColumnAt(pos)) continue
          const block = blocks[world.sync.getBlockType(pos)]
          if (!block || block.name.endsWith('air') || block.name === 'water' || block.name === 'lava') continue
          const distance = pos.offset(0.5, 0.5, 0.5).distanceTo(center)
          const blast = power * (0.7 + Math.random() * 0.6) - distance * (0.75 + ((block.resistance ?? 0) + 0.3) * 0.3 * 3)
          if (blast > 0) broken.add(`${pos.x},${pos.y},${pos.z}`)
        }
      }
    }
    if (!broken.size) return
    const air = registry.blocksByName.air.defaultState
    for (const key of broken) {
      const pos = new Vec3(...key.split(',').map(Number))
      if (Math.random() < BLOCK_DROP_CHANCE && serv.mindpyDropBlockLoot) {
        serv.mindpyDropBlockLoot(world, pos, Block.fromStateId(world.sync.getBlockStateId(pos), 0), null)
      }
    }
    const min = c.offset(-r, -r, -r)
    const max = c.offset(r, r, r)
    await serv.mindpySetBlocksInBox(world, min, max, (current, edge, x, y, z) => broken.has(`${x},${y},${z}`) ? air : null)
  }

  // ---- the tick -------------------------------------------------------------------------------------------------
  serv.on('tick', (delta) => {
    const now = Date.now()
    const dt = Math.min(delta || 0.05, 0.25)
    for (const arrow of arrows) flyArrow(arrow, dt, now)
    for (const mob of serv.mindpyMobs) {
      const s = mob.mindpyMob
      if (!s.hostile || s.noAI || !(mob.health > 0)) continue
      const target = s.target
      if (!target || !(target.health > 0) || target.world !== mob.world) {
        if (s.fuseStart) { s.fuseStart = null; setSwelling(mob, false) }
        continue
      }
      try {
        if (MELEE[s.hostile]) melee(mob, s, target, now)
        else if (s.hostile === 'skeleton') shoot(mob, s, target, now)
        else if (s.hostile === 'creeper') creeper(mob, s, target, now)
      } catch (err) {
        console.error('[mindpy] mob attack:', err)
      }
    }
  })
}
