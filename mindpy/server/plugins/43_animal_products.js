'use strict'
// What animals give without dying, as in vanilla: a bucket used on a cow, mooshroom or goat fills with
// milk; a bowl used on a mooshroom fills with mushroom stew; shears used on a sheep give 1-3 wool and leave
// it sheared until its wool grows back (30-90 s here; vanilla: when it eats grass); chickens lay an egg
// every 5-10 minutes. Plugin option `eggIntervalSeconds: [min, max]` changes the laying interval (tests).
// (Cake needs milk and an egg, beds need wool: tasks use all three.)

const path = require('path')
const { Vec3 } = require('vec3')
const { metadataKey } = require(path.join(__dirname, '..', 'js', 'lib', 'metadata.js'))

const MILKABLE = new Set(['cow', 'mooshroom', 'goat'])
const WOOL_REGROW_MS = [30000, 90000]
const EGG_INTERVAL_S = [300, 600]
const INTERACT = new Set([0, 'interact'])
const SHEARED_FLAG = 0x10 // in the sheep's wool byte: color in the low bits, sheared in bit 4

const between = ([lo, hi]) => lo + Math.random() * (hi - lo)

module.exports.server = function (serv, settings) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  const eggInterval = settings?.mindpy?.pluginOptions?.eggIntervalSeconds || EGG_INTERVAL_S
  const woolKey = metadataKey(registry, 'sheep', 'wool')

  const itemOf = (name, count = 1) => new Item(registry.itemsByName[name].id, count)
  const drop = (entity, item) => serv.mindpyDropItem(entity.world, entity.position.offset(0, 0.8, 0), item, {
    velocity: new Vec3(serv.mindpyLoot.spread(0.5), 3, serv.mindpyLoot.spread(0.5))
  })

  // Swap one of the held items for `result`, like filling a bucket (the rest of the stack stays).
  function exchangeHeld (player, slot, held, result) {
    if (held.count === 1) return player.inventory.updateSlot(slot, result)
    player.inventory.updateSlot(slot, new Item(held.type, held.count - 1))
    const left = player.mindpyGive ? player.mindpyGive(result) : result
    if (left) serv.mindpyDropItem(player.world, player.position.offset(0, 1, 0), left)
  }

  function setSheared (sheep, sheared) {
    sheep.mindpyMob.sheared = sheared
    if (woolKey < 0) return
    sheep.sendMetadata([{ key: woolKey, type: 'byte', value: sheared ? SHEARED_FLAG : 0 }]) // typed per version
  }

  serv.on('newPlayer', (player) => {
    player._client.on('use_entity', ({ target, mouse, hand }) => {
      if (!INTERACT.has(mouse) || (hand ?? 0) !== 0) return // main-hand interactions only
      const animal = serv.entities[target]
      if (!animal?.mindpyMob || animal.health <= 0) return
      const slot = 36 + player.heldItemSlot
      const held = player.inventory.slots[slot]
      if (!held) return
      if (held.name === 'bucket' && MILKABLE.has(animal.name)) {
        exchangeHeld(player, slot, held, itemOf('milk_bucket'))
      } else if (held.name === 'bowl' && animal.name === 'mooshroom') {
        exchangeHeld(player, slot, held, itemOf('mushroom_stew'))
      } else if (held.name === 'shears' && animal.name === 'sheep' && !animal.mindpyMob.sheared) {
        drop(animal, itemOf('white_wool', serv.mindpyLoot.count(1, 3)))
        setSheared(animal, true)
        setTimeout(() => { if (animal.health > 0) setSheared(animal, false) }, between(WOOL_REGROW_MS)).unref()
      }
    })
  })

  // Laying eggs: checked once a second, not every tick.
  setInterval(() => {
    const now = Date.now()
    for (const chicken of serv.mindpyMobs || []) {
      if (chicken.name !== 'chicken' || chicken.health <= 0) continue
      const state = chicken.mindpyMob
      if (state.nextEgg === undefined) state.nextEgg = now + between(eggInterval) * 1000
      if (now < state.nextEgg) continue
      state.nextEgg = now + between(eggInterval) * 1000
      serv.mindpyDropItem(chicken.world, chicken.position.offset(0, 0.3, 0), itemOf('egg'), { velocity: new Vec3(0, 0, 0) })
    }
  }, 1000).unref()
}
