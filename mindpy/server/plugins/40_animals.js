'use strict'
// Animals: /summon cow|sheep|pig|chicken|rabbit|mooshroom|... [x y z]. They have health, take damage from
// attacks (more with a sword or axe), die, and drop their loot; they wander a little. flying-squid's
// /summon ignores animals, every hit does 1 damage, and dead mobs drop nothing and never disappear.

const { Vec3 } = require('vec3')
const UUID = require('uuid-1345')

const HEALTH = { cow: 10, mooshroom: 10, pig: 10, sheep: 8, chicken: 4, rabbit: 3, goat: 10, horse: 15, donkey: 15, llama: 15, cat: 10, wolf: 8, fox: 10, turtle: 30, panda: 20, polar_bear: 30, villager: 20 }
const EXTRA_LOOT = { sheep: [{ item: 'white_wool', dropChance: 1, stackSizeRange: [1, 1] }] }
const WEAPON_DAMAGE = {
  wooden_sword: 4, golden_sword: 4, stone_sword: 5, iron_sword: 6, diamond_sword: 7, netherite_sword: 8,
  wooden_axe: 7, golden_axe: 7, stone_axe: 9, iron_axe: 9, diamond_axe: 9, netherite_axe: 10
}
const WANDER_MS = 1000

module.exports.server = function (serv) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  const UserError = require('flying-squid').UserError
  const animals = new Set()

  function randomCount ([min, max]) {
    return min + Math.floor(Math.random() * (max - min + 1))
  }

  serv.mindpySpawnAnimal = (name, world, position) => {
    const data = registry.entitiesByName[name]
    if (!data) throw new UserError(`Unknown entity '${name}'`)
    const entity = serv.initEntity('mob', data.id, world, position.clone())
    entity.uuid = UUID.v4()
    entity.name = name
    entity.velocity = new Vec3(0, 0, 0)
    entity.pitch = 0
    entity.headPitch = 0
    entity.yaw = Math.floor(Math.random() * 256) - 128 // a signed byte in the packets
    entity.gravity = new Vec3(0, -20, 0)
    entity.terminalvelocity = new Vec3(27, 27, 27)
    entity.friction = new Vec3(15, 0, 15)
    entity.size = new Vec3(data.width || 0.9, data.height || 1.4, data.width || 0.9)
    entity.health = HEALTH[name] ?? 10
    entity.metadata = []
    entity.mindpyAnimal = true
    entity.updateAndSpawn()
    animals.add(entity)
    return entity
  }

  function die (entity) {
    animals.delete(entity)
    const loot = (registry.entityLoot?.[entity.name]?.drops || []).concat(EXTRA_LOOT[entity.name] || [])
    for (const drop of loot) {
      if (Math.random() > drop.dropChance) continue
      const item = registry.itemsByName[drop.item]
      const count = randomCount(drop.stackSizeRange || [1, 1])
      if (item && count > 0) {
        serv.mindpyDropItem(entity.world, entity.position.offset(0, 0.5, 0), new Item(item.id, count), {
          velocity: new Vec3(Math.random() - 0.5, 2, Math.random() - 0.5), pickupDelay: 500
        })
      }
    }
    // flying-squid forgets a dead mob but never tells the clients: remove it from their worlds
    setTimeout(() => entity._writeOthersNearby('entity_destroy', { entityIds: [entity.id] }), 800)
    delete serv.entities[entity.id]
  }

  serv.on('newEntity', (entity) => {
    if (entity.type !== 'mob') return
    const takeDamage = entity.takeDamage
    entity.takeDamage = (options) => {
      if (entity.mindpyDead) return
      takeDamage(options)
      if (entity.health <= 0) {
        entity.mindpyDead = true
        die(entity)
      }
    }
  })

  // slow random walks on the ground
  setInterval(() => {
    for (const entity of animals) {
      if (Math.random() < 0.25) {
        const angle = Math.random() * Math.PI * 2
        entity.velocity = new Vec3(Math.cos(angle) * 2, entity.velocity.y, Math.sin(angle) * 2)
        entity.yaw = Math.floor((angle / (Math.PI * 2)) * 256) - 128
      }
    }
  }, WANDER_MS).unref()

  serv.once('pluginsReady', () => {
    serv.commands.add({
      base: 'summon',
      info: 'Summon an entity',
      usage: '/summon <entity> [x y z]',
      op: true,
      parse: str => { const a = str.trim().split(/\s+/).filter(Boolean); return a.length ? a : false },
      action (args, ctx) {
        const name = args[0].replace(/^minecraft:/, '')
        const base = ctx.player ? ctx.player.position : new Vec3(0, -60, 0)
        const at = (text, b) => (text.startsWith('~') ? b + Number(text.slice(1) || 0) : Number(text))
        const position = args.length >= 4 ? new Vec3(at(args[1], base.x), at(args[2], base.y), at(args[3], base.z)) : base.clone()
        if (position.toArray().some(Number.isNaN)) throw new UserError('Invalid position')
        const world = ctx.player ? ctx.player.world : serv.overworld
        const data = registry.entitiesByName[name]
        if (!data) throw new UserError(`Unknown entity '${name}'`)
        if (name === 'item' || data.type === 'projectile' || data.type === 'other') throw new UserError(`Cannot summon ${name}`)
        serv.mindpySpawnAnimal(name, world, position)
        return `Summoned new ${data.displayName || name}`
      }
    })
  })
}

module.exports.player = function (player) {
  // hits do the damage of the weapon in hand (fist: 1)
  player.on('attack', (data) => {
    const held = player.inventory?.slots?.[36 + player.heldItemSlot]
    data.damage = (held && WEAPON_DAMAGE[held.name]) || 1
  })
}
