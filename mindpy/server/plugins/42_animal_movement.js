'use strict'
// How mobs move. A mob with a `steer` function in its state (monsters, 45_hostile_mobs.js) goes where that sends it,
// each tick, at its own speed, and with `maxDrop` set it stops at an edge deeper than that instead of walking off.
// Animals: now and then one walks for a second or three in a random direction at a slow pace,
// staying within a few blocks of where it was summoned; it stays on the ground (falls off edges, steps
// up one block, turns back at walls) and is knocked back by hits. flying-squid's mob physics pushes a mob
// resting on the ground up by half its height every tick, so animals are moved here instead (they have
// no entity.size, which makes flying-squid's physics skip them). An animal standing still costs one
// comparison per tick, which keeps 50 animals cheap (see benchmarks/bench_server_ticks.py).

const { Vec3 } = require('vec3')

const WALK_SPEED = 1.2 // blocks per second (vanilla cows amble at about 1)
const GRAVITY = 32 // blocks per second squared
const MAX_FALL = 20 // blocks per second: at most one block per tick, so no falling through a floor
const HOME_RADIUS = 6 // farther than this from home, the next walk heads back
const IDLE_MS = [2000, 8000]
const WALK_MS = [1000, 3000]
const KNOCK_DECAY_GROUND = 0.75 // per tick
const KNOCK_DECAY_AIR = 0.95
const MAX_TICK_S = 0.25 // after a stall, move as if at most this much time passed

const between = ([lo, hi]) => lo + Math.random() * (hi - lo)

module.exports.server = function (serv) {
  const blocks = serv.registry.blocks

  // Is the block at x y z solid? Unloaded blocks count as solid: animals never walk or fall into them.
  function solid (world, x, y, z) {
    const pos = new Vec3(Math.floor(x), Math.floor(y), Math.floor(z))
    if (!world.sync.getColumnAt(pos)) return true
    return blocks[world.sync.getBlockType(pos)]?.boundingBox === 'block'
  }

  // Fences and walls are 1.5 blocks high: nothing steps onto them (that is what pens are for).
  function tooHighToClimb (world, x, y, z) {
    const pos = new Vec3(Math.floor(x), Math.floor(y), Math.floor(z))
    if (!world.sync.getColumnAt(pos)) return true
    return /(_fence|_wall|_fence_gate)$/.test(blocks[world.sync.getBlockType(pos)]?.name || '')
  }

  function stateOf (entity) {
    const s = entity.mindpyMob
    if (s.walkUntil === undefined) Object.assign(s, { walkUntil: 0, nextWalk: Date.now() + between(IDLE_MS), dir: null, knock: null, vy: 0, airborne: true })
    return s
  }

  serv.mindpyKnockBack = (entity, away, speed) => {
    const s = stateOf(entity)
    const length = Math.hypot(away.x, away.z) || 1
    s.knock = new Vec3((away.x / length) * speed, 0, (away.z / length) * speed)
    s.vy = Math.max(s.vy, speed * 0.8)
    s.airborne = true
  }

  function startWalk (entity, s, now) {
    const home = s.home
    const angle = entity.position.distanceTo(home) > HOME_RADIUS
      ? Math.atan2(home.z - entity.position.z, home.x - entity.position.x)
      : Math.random() * Math.PI * 2
    s.dir = new Vec3(Math.cos(angle), 0, Math.sin(angle))
    s.walkUntil = now + between(WALK_MS)
    s.nextWalk = s.walkUntil + between(IDLE_MS)
    face(entity, s.dir)
  }

  // Turn the mob to look along `dir` (yaw 0 faces +z, 90 faces -x), as a signed byte.
  function face (entity, dir) {
    const degrees = Math.atan2(-dir.x, dir.z) * 180 / Math.PI
    let yaw = Math.floor(degrees * 256 / 360)
    if (yaw < -128) yaw += 256
    if (yaw > 127) yaw -= 256
    entity.yaw = yaw
    entity._writeOthersNearby('entity_look', { entityId: entity.id, yaw, pitch: 0, onGround: true })
    entity._writeOthersNearby('entity_head_rotation', { entityId: entity.id, headYaw: yaw })
  }
  serv.mindpyFace = face

  // How far down the ground is under x z, looking from y down to `limit` blocks (limit + 1: deeper than that).
  function dropBelow (world, x, y, z, limit) {
    for (let d = 0; d <= limit; d++) if (solid(world, x, y - 0.5 - d, z)) return d
    return limit + 1
  }

  function step (entity, dt, now) {
    const s = stateOf(entity)
    const steered = !!s.steer && !s.noAI && s.steer(entity, s, now)
    if (steered) s.walkUntil = s.dir ? Infinity : 0
    else if (s.walkUntil === Infinity) s.walkUntil = 0 // a chase ended: back to wandering, after a pause
    let walking = now < s.walkUntil
    if (!walking && !s.airborne && !s.knock) {
      if (now < s.nextWalk || s.noAI || steered) return // standing still: nothing to do
      startWalk(entity, s, now)
      walking = true
    }
    const world = entity.world
    const pos = entity.position
    const speed = steered ? s.speed : WALK_SPEED
    let vx = (walking ? s.dir.x * speed : 0) + (s.knock ? s.knock.x : 0)
    let vz = (walking ? s.dir.z * speed : 0) + (s.knock ? s.knock.z : 0)
    let x = pos.x + vx * dt
    let z = pos.z + vz * dt
    let y = pos.y

    // walls: look half a body ahead at the feet; climb one block if there is room, else stop
    const half = (s.width || 0.9) / 2
    const aheadX = x + Math.sign(vx) * half
    const aheadZ = z + Math.sign(vz) * half
    if ((vx || vz) && solid(world, aheadX, y + 0.01, aheadZ)) {
      const canClimb = !s.airborne && !tooHighToClimb(world, aheadX, y + 0.01, aheadZ) &&
        !solid(world, aheadX, y + 1.01, aheadZ) && !solid(world, aheadX, y + 2.01, aheadZ)
      if (canClimb) {
        y = Math.floor(y + 0.01) + 1
      } else {
        x = pos.x
        z = pos.z
        vx = vz = 0
        s.walkUntil = now
        s.knock = null
        s.blockedAt = now // a steering mob looks for a way around
      }
    }

    // edges: a mob that minds them does not walk where the ground ahead is more than maxDrop blocks down
    if (walking && !s.airborne && !s.knock && s.maxDrop !== undefined &&
        dropBelow(world, aheadX, y, aheadZ, s.maxDrop) > s.maxDrop) {
      x = pos.x
      z = pos.z
      s.blockedAt = now
    }

    // falling and landing
    if (s.airborne) {
      s.vy = Math.max(-MAX_FALL, s.vy - GRAVITY * dt)
      y += s.vy * dt
      if (s.vy <= 0 && solid(world, x, y, z)) {
        y = Math.floor(y) + 1
        s.vy = 0
        s.airborne = false
      }
    } else if (!solid(world, x, y - 0.5, z) && !solid(world, aheadX, y - 0.5, aheadZ)) {
      // its front foot on a block holds it up too: a mob that has just stepped up stands there, centre over the edge
      s.airborne = true // walked off an edge
      s.vy = 0
    }

    if (s.knock) {
      s.knock = s.knock.scaled(s.airborne ? KNOCK_DECAY_AIR : KNOCK_DECAY_GROUND)
      if (Math.hypot(s.knock.x, s.knock.z) < 0.1) s.knock = null
    }
    entity.sendPosition(new Vec3(x, y, z), !s.airborne).catch(err => console.error('[mindpy] mob movement:', err))
  }

  serv.on('tick', (delta) => {
    const dt = Math.min(delta || 0.05, MAX_TICK_S)
    const now = Date.now()
    for (const entity of serv.mindpyMobs) {
      if (entity.health > 0) step(entity, dt, now)
    }
  })
}
