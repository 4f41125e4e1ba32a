'use strict'
// Mobs' bodies, and animals: /summon cow|sheep|pig|chicken|rabbit|mooshroom|... [x y z] [{NoAI:1b,Health:5f}] (other
// NBT is ignored). A mob (serv.mindpySpawnMob: an animal here, a monster from 45_hostile_mobs.js) has its vanilla health,
// takes the damage of the weapon that hits it (with vanilla's half-second invulnerability and a knockback), dies,
// drops its loot per minecraft-data and disappears. Animals wander (42_animal_movement.js, which moves every mob).
// flying-squid's /summon ignores animals, every hit does 1 damage, dead mobs drop nothing and never
// disappear from the clients, and its mob physics makes them bob up and down.
// Other plugins add kinds to /summon through serv.mindpySummoners[name] = (world, position) => entity.

const { Vec3 } = require('vec3')
const UUID = require('uuid-1345')

const HEALTH = {
  cow: 10, mooshroom: 10, pig: 10, sheep: 8, chicken: 4, rabbit: 3, goat: 10, horse: 15, donkey: 15, mule: 15,
  llama: 15, cat: 10, ocelot: 10, wolf: 8, fox: 10, turtle: 30, panda: 20, polar_bear: 30, villager: 20, parrot: 6, bee: 10
}
// Loot that minecraft-data's entity tables leave out.
const EXTRA_LOOT = { sheep: [{ item: 'white_wool', dropChance: 1, stackSizeRange: [1, 1] }] }
const WEAPON_DAMAGE = {
  wooden_sword: 4, golden_sword: 4, stone_sword: 5, iron_sword: 6, diamond_sword: 7, netherite_sword: 8,
  wooden_axe: 7, golden_axe: 7, stone_axe: 9, iron_axe: 9, diamond_axe: 9, netherite_axe: 10
}
// minecraft-data names an entity's category from 1.19 on ('UNKNOWN' at 1.18.2), its type at every version
const PASSIVE_TYPES = new Set(['animal', 'passive', 'water_creature', 'ambient'])
const isPassive = data => data.category === 'Passive mobs' || (data.category === 'UNKNOWN' && PASSIVE_TYPES.has(data.type))
const INVULNERABLE_MS = 500 // vanilla: 10 ticks after a hit, only a stronger hit does (the difference)
const BODY_MS = 1000 // the death animation plays before the body is removed
const KNOCKBACK = 5 // blocks per second, away from the attacker, and a small hop
const ENTITY_STATUS_DEATH = 3

module.exports.server = function (serv, settings) {
  const registry = serv.registry
  const maxEntities = settings?.['max-entities'] || 200
  const Item = require('prismarine-item')(registry)
  const UserError = require('flying-squid').UserError
  serv.mindpyMobs = new Set() // every living mob with a body of ours (moved by 42_animal_movement.js)
  serv.mindpySummoners = serv.mindpySummoners || {}

  // The damage_event packet names its damage type by index in the registry the client received.
  const damageTypes = registry.loginPacket?.dimensionCodec?.['minecraft:damage_type']?.entries || []
  const damageTypeIndex = key => Math.max(0, damageTypes.findIndex(e => e.key === 'minecraft:' + key))

  // Show `entity` hurt to the players near it (and to itself, if it is a player): `type` names the damage type
  // (player_attack, mob_attack, arrow, explosion, on_fire...), `attacker` the entity that caused it, if any.
  serv.mindpyShowHurt = (entity, type = 'player_attack', attacker = null) => {
    const write = entity.type === 'player' ? entity._writeNearby : entity._writeOthersNearby
    if (!registry.version['>=']('1.19.4')) {
      write('entity_status', { entityId: entity.id, entityStatus: 2 })
      return
    }
    const source = attacker ? attacker.id + 1 : 0 // "id + 1, or 0 for none"
    write('damage_event', {
      entityId: entity.id, sourceTypeId: damageTypeIndex(type), sourceCauseId: source, sourceDirectId: source
    })
  }

  // `health` overrides the animal table (monsters bring their own).
  serv.mindpySpawnMob = (name, world, position, { health } = {}) => {
    const data = registry.entitiesByName[name]
    if (!data) throw new UserError(`Unknown entity '${name}'`)
    const entity = serv.initEntity('mob', data.id, world, position.clone())
    entity.uuid = UUID.v4()
    entity.name = name
    entity.velocity = new Vec3(0, 0, 0) // read by the spawn packet; the movement plugin moves animals
    entity.pitch = 0
    entity.headPitch = 0
    entity.yaw = Math.floor(Math.random() * 256) - 128 // a signed byte in the packets
    entity.health = health ?? HEALTH[name] ?? 10
    entity.metadata = []
    // no entity.size: flying-squid's physics skips entities without one (see 42_animal_movement.js)
    entity.mindpyMob = { width: data.width || 0.9, home: position.clone(), lastHurt: 0, lastDamage: 0 }
    entity.takeDamage = (options) => takeDamage(entity, options)
    entity.updateAndSpawn()
    serv.mindpyMobs.add(entity)
    return entity
  }

  // `unblockable` (as /kill): no invulnerability after a recent hit; `type`: the damage type shown (a player's hit
  // by default); `knockback` false for damage that pushes nothing (burning)
  function takeDamage (entity, { damage = 1, attacker = null, unblockable = false, type, knockback = true } = {}) {
    const state = entity.mindpyMob
    if (entity.health <= 0) return
    const now = Date.now()
    let dealt = damage
    if (unblockable) {
      state.lastHurt = now
    } else if (now - state.lastHurt < INVULNERABLE_MS) {
      if (damage <= state.lastDamage) return
      dealt = damage - state.lastDamage
    } else {
      state.lastHurt = now
    }
    state.lastDamage = damage
    entity.health -= dealt
    if (attacker?.type === 'player') state.hitByPlayerAt = now
    serv.mindpyShowHurt(entity, type || (attacker?.type === 'player' ? 'player_attack' : 'generic'), attacker)
    if (attacker && knockback && serv.mindpyKnockBack) serv.mindpyKnockBack(entity, entity.position.minus(attacker.position), KNOCKBACK)
    if (entity.health <= 0) die(entity)
  }

  // A mob that leaves the world without dying (despawned, exploded): no animation, no loot.
  serv.mindpyRemoveMob = (entity) => {
    entity.health = 0
    serv.mindpyMobs.delete(entity)
    for (const player of entity.getNearbyPlayers()) player.nearbyEntities = player.nearbyEntities.filter(e => e !== entity)
    entity.destroy()
  }

  function die (entity) {
    serv.mindpyMobs.delete(entity)
    delete serv.entities[entity.id] // no more hits, selectors or ticks
    entity._writeOthersNearby('entity_status', { entityId: entity.id, entityStatus: ENTITY_STATUS_DEATH })
    dropLoot(entity)
    const watchers = entity.getNearbyPlayers()
    setTimeout(() => {
      for (const player of watchers) {
        player._client.write('entity_destroy', { entityIds: [entity.id] })
        player.nearbyEntities = player.nearbyEntities.filter(e => e !== entity)
      }
    }, BODY_MS)
  }

  // Rare drops (a zombie's iron ingot) need a kill by a player: hit by one in the last 5 s, as vanilla counts it.
  function dropLoot (entity) {
    const loot = (registry.entityLoot?.[entity.name]?.drops || []).concat(EXTRA_LOOT[entity.name] || [])
    const byPlayer = Date.now() - (entity.mindpyMob.hitByPlayerAt || -Infinity) < 5000
    for (const drop of loot) {
      if (drop.playerKill && !byPlayer) continue
      if (!serv.mindpyLoot.chance(drop.dropChance)) continue
      const item = registry.itemsByName[drop.item]
      const [min, max] = drop.stackSizeRange || [1, 1]
      const count = serv.mindpyLoot.count(Math.max(1, min || 1), Math.max(1, max || 1))
      if (!item) continue
      serv.mindpyDropItem(entity.world, entity.position.offset(0, 0.5, 0), new Item(item.id, count), {
        velocity: new Vec3(serv.mindpyLoot.spread(1), 3, serv.mindpyLoot.spread(1)), pickupDelay: 500
      })
    }
  }

  serv.once('pluginsReady', () => {
    const { coordinate, originOf, worldOf } = serv.mindpyCommands
    serv.commands.add({
      base: 'summon',
      info: 'Summon an animal or a monster',
      usage: '/summon <entity> [x y z] [{NoAI:1b,Health:5f}]',
      op: true,
      parse: str => {
        const [, head, nbt] = str.trim().match(/^([^{]*)(\{.*\})?$/) || []
        const a = (head || '').trim().split(/\s+/).filter(Boolean)
        return a.length === 1 || a.length === 4 ? { args: a, nbt: nbt || '' } : false
      },
      action ({ args, nbt }, ctx) {
        const name = args[0].replace(/^minecraft:/, '')
        const data = registry.entitiesByName[name]
        if (!data) throw new UserError(`Unknown entity '${args[0]}'`)
        const summon = isPassive(data) ? (world, position) => serv.mindpySpawnMob(name, world, position) : serv.mindpySummoners[name]
        if (!summon) throw new UserError(`Cannot summon ${name}: only animals and other passive mobs, ${Object.keys(serv.mindpySummoners).join(', ') || 'no monsters'} are supported`)
        if (Object.keys(serv.entities).length >= maxEntities) throw new UserError(`Too many entities (at most ${maxEntities}): /kill some first`)
        const o = originOf(ctx)
        const position = args.length === 4
          ? new Vec3(coordinate(args[1], o.x, true), coordinate(args[2], o.y), coordinate(args[3], o.z, true))
          : o.clone()
        const mob = summon(worldOf(ctx), position)
        mob.mindpyMob.noAI = /NoAI\s*:\s*(1b?|true)/i.test(nbt)
        const health = Number((nbt.match(/Health\s*:\s*([0-9.]+)f?/i) || [])[1])
        if (health > 0) mob.health = Math.min(mob.health, health) // other NBT is ignored
        return `Summoned new ${data.displayName || name}`
      }
    })
  })
}

module.exports.player = function (player) {
  // hits do the damage of the weapon in hand (fist: 1) and know who hit, for the knockback
  player.on('attack', (data) => {
    const held = player.inventory?.slots?.[36 + player.heldItemSlot]
    data.damage = (held && WEAPON_DAMAGE[held.name]) || 1
    data.attacker = player
  })
}
