'use strict'
// Hunger and natural regeneration, as in vanilla. flying-squid has neither: food never drops and a hurt
// player never heals. Exhaustion builds up from sprinting (0.1 per block), jumping (0.05, 0.2 when
// sprinting), attacking (0.1), being hurt (0.1), breaking blocks (0.005) and healing (6 per health point);
// every 4 of it takes a point of saturation, or of food once saturation is gone. With full food and some
// saturation a player heals fast (every 10 ticks), with food 18 or more slowly (every 80 ticks); with no
// food it starves (every 80 ticks, down to 10 health on easy, 1 on normal, to death on hard). Peaceful
// refills food instead. Eating is in 50_food.js.

const EXHAUSTION = { sprintPerBlock: 0.1, jump: 0.05, sprintJump: 0.2, attack: 0.1, hurt: 0.1, dig: 0.005, heal: 6 }
const EXHAUSTION_PER_POINT = 4
const FAST_HEAL_TICKS = 10
const SLOW_HEAL_TICKS = 80
const STARVE_TICKS = 80
const STARVE_FLOOR = { 1: 10, 2: 1, 3: 0 } // by difficulty: the health starving stops at
const SPRINT_ACTIONS = new Set([3, 'start_sprinting'])
const STOP_SPRINT_ACTIONS = new Set([4, 'stop_sprinting'])

module.exports.server = function (serv) {
  const players = new Set()

  serv.on('newPlayer', (player) => {
    const state = { exhaustion: 0, sprinting: false, wasOnGround: true, last: null, timer: 0, lastHealth: 20 }
    player.mindpyHunger = state
    player.mindpyExhaust = (amount) => { state.exhaustion = Math.min(40, state.exhaustion + amount) }
    players.add(player)
    player._client.on('end', () => players.delete(player))

    player._client.on('entity_action', ({ actionId }) => {
      if (SPRINT_ACTIONS.has(actionId)) state.sprinting = true
      else if (STOP_SPRINT_ACTIONS.has(actionId)) state.sprinting = false
    })
    // movement: distance sprinted, and jumps (leaving the ground upwards)
    const moved = ({ x, y, z, onGround }) => {
      if (x === undefined) return
      if (state.last && (player.gameMode === 0 || player.gameMode === 2)) {
        const dx = x - state.last.x
        const dz = z - state.last.z
        if (state.sprinting) player.mindpyExhaust(EXHAUSTION.sprintPerBlock * Math.min(2, Math.hypot(dx, dz)))
        if (state.wasOnGround && !onGround && y > state.last.y) player.mindpyExhaust(state.sprinting ? EXHAUSTION.sprintJump : EXHAUSTION.jump)
      }
      state.last = { x, y, z }
      state.wasOnGround = onGround
    }
    player._client.on('position', moved)
    player._client.on('position_look', moved)
    player.on('attack', () => player.mindpyExhaust(EXHAUSTION.attack))
    player.on('dug', () => player.mindpyExhaust(EXHAUSTION.dig))
  })

  // What changes health, food or saturation sends update_health once per tick at most.
  serv.on('tick', () => {
    const difficulty = serv.difficulty ?? 1
    for (const player of players) {
      const state = player.mindpyHunger
      if (!state || !(player.health > 0) || (player.gameMode !== 0 && player.gameMode !== 2)) continue
      if (player.health < state.lastHealth) player.mindpyExhaust(EXHAUSTION.hurt) // hurt since the last tick
      const before = `${player.health},${player.food},${player.foodSaturation}`
      let food = player.food ?? 20
      let saturation = player.foodSaturation ?? 5
      let health = player.health

      while (state.exhaustion >= EXHAUSTION_PER_POINT) {
        state.exhaustion -= EXHAUSTION_PER_POINT
        if (saturation > 0) saturation = Math.max(0, saturation - 1)
        else if (difficulty !== 0) food = Math.max(0, food - 1)
      }

      state.timer++
      if (difficulty === 0 && food < 20 && state.timer % 20 === 0) food++
      if (saturation > 0 && food >= 20 && health < 20) {
        if (state.timer >= FAST_HEAL_TICKS) {
          const spent = Math.min(saturation, 6)
          health = Math.min(20, health + spent / 6)
          player.mindpyExhaust(spent)
          state.timer = 0
        }
      } else if (food >= 18 && health < 20) {
        if (state.timer >= SLOW_HEAL_TICKS) {
          health = Math.min(20, health + 1)
          player.mindpyExhaust(EXHAUSTION.heal)
          state.timer = 0
        }
      } else if (food <= 0) {
        if (state.timer >= STARVE_TICKS) {
          if (health > (STARVE_FLOOR[difficulty] ?? 10)) health -= 1
          state.timer = 0
        }
      } else {
        state.timer = Math.min(state.timer, SLOW_HEAL_TICKS)
      }

      player.food = food
      player.foodSaturation = Math.min(saturation, food)
      player.health = health
      state.lastHealth = health
      if (`${player.health},${player.food},${player.foodSaturation}` !== before) player.updateHealth(player.health)
    }
  })
}
