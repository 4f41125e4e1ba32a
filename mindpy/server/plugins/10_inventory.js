'use strict'
// Inventories and windows, server-authoritative, for 1.17+ clients.
//
// flying-squid hands the 1.17+ window_click packet to prismarine-windows in the old shape, so clicks are
// ignored and client and server drift apart; tossing loses items; pickups add one item per stack; item
// entities carry no item (the wrong key, no metadata at 1.20.2+); /give adds the count as a string. Here the server
// applies every click itself (lib/clicks.js) and, as vanilla does, sends back what the client predicted
// wrong (the whole window when the click was made on an old state id), so the client always ends up with
// the server's truth. `/mindpy_inv [player]` shows the server's view of an inventory as JSON.
//
// Other plugins open container windows with player.mindpyOpenWindow(spec) (crafting table, furnaces, chests):
// spec = {type, title, size, get(i), set(i, item), isResult(i), takeResult(i), mayPlace(i, item),
// quickMoveInto(item) -> ranges of the window a shift-click from the player's slots fills, craftingSlots,
// block: {position, name} (the window closes when the player walks off or the block goes), after(),
// onOpen(windowId), onClose()}.

const path = require('path')
const { Vec3 } = require('vec3')
const { applyClick, insert } = require(path.join(__dirname, '..', 'js', 'lib', 'clicks.js'))
const { metadataFor, ITEM_STACK_KEY } = require(path.join(__dirname, '..', 'js', 'lib', 'metadata.js'))

const PLAYER_WINDOW_SIZE = 46
const HOTBAR_START = 36
// Who may pick up a thrown item when: other players after half a second (giving items between players),
// the thrower only after 2 s (vanilla's 40-tick delay), so a toss is not caught again at once.
const TOSS_PICKUP_DELAY_MS = 500
const THROWER_PICKUP_DELAY_MS = 2000
const PICKUP_RADIUS = 1.75
const ITEM_LIFETIME_MS = 5 * 60 * 1000

module.exports.server = function (serv) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  const itemEntityType = registry.entitiesByName.item.id
  serv.mindpyItem = Item

  // Throw an item entity from a position with a velocity (blocks per second).
  serv.mindpyDropItem = (world, position, item, { velocity = new Vec3(0, 2, 0), pickupDelay = 500, thrower = null } = {}) => {
    if (!item || item.count <= 0) return null
    const entity = serv.spawnObject(itemEntityType, world, position, {
      velocity,
      itemId: item.type,
      itemDamage: item.metadata,
      itemCount: item.count,
      pickupTime: pickupDelay,
      deathTime: ITEM_LIFETIME_MS
    })
    entity.mindpyThrower = thrower
    return entity
  }

  // /give with numeric counts, stacking like vanilla (fill existing stacks, then empty slots; hotbar first).
  serv.once('pluginsReady', () => {
    const { skipMcPrefix } = require('flying-squid/src/lib/utils')
    const UserError = require('flying-squid').UserError
    serv.commands.add({
      base: 'give',
      info: 'Gives an item to a player.',
      usage: '/give <player> <item> [count]',
      tab: ['player', 'item', 'number'],
      op: true,
      parse (args, ctx) {
        const parts = args.trim().split(/\s+/)
        if (!parts[0] || !parts[1]) return false
        const players = serv.getPlayers(parts[0], ctx.player)
        if (players.length < 1) throw new UserError(`No player was found named ${parts[0]}`)
        const count = parts[2] === undefined ? 1 : Number(parts[2])
        if (!Number.isInteger(count) || count < 1) throw new UserError(`Invalid count '${parts[2]}': expected a whole number >= 1`)
        return { players, item: skipMcPrefix(parts[1].replace(/\[.*\]$/, '')), count }
      },
      action ({ players, item, count }) {
        const data = registry.itemsByName[item]
        if (!data) throw new UserError(`Unknown item '${item}'`)
        for (const player of players) {
          const left = player.mindpyGive(new Item(data.id, count))
          if (left) serv.mindpyDropItem(player.world, player.position.offset(0, 1, 0), left)
        }
        const who = players.length === 1 ? players[0].username : `${players.length} players`
        return `Gave ${count} [${item}] to ${who}`
      }
    })

    // The server's own view of a player's inventory, so tests (and operators) can check that a client's
    // inventory matches it. Replies "mindpy_inv {json}" with the 46 player-window slots and the cursor.
    serv.commands.add({
      base: 'mindpy_inv',
      info: "Show the server's view of a player's inventory as JSON",
      usage: '/mindpy_inv [player]',
      op: true,
      parse (args, ctx) {
        const name = args.trim() || ctx.player?.username
        const target = serv.players.find(p => p.username === name)
        if (!target) throw new UserError(`No player was found named ${name}`)
        return { target }
      },
      action ({ target }, ctx) {
        const describe = item => (item ? [registry.items[item.type].name, item.count] : null)
        const view = {
          slots: target.inventory.slots.slice(0, 46).map(describe),
          cursor: describe(target.mindpyWindowState?.cursor)
        }
        const text = 'mindpy_inv ' + JSON.stringify(view)
        if (ctx.player) ctx.player.chat(text)
        else serv.info(text)
      }
    })
  })
}

module.exports.entity = function (entity, serv) {
  // flying-squid sends item entities' stacks under the key of 1.14-1.16 (and no metadata at all from 1.20.2 on), so
  // dropped items reach clients as items of nothing. An item entity sends the one piece that matters, which item
  // (and how many) it holds; every other entity's metadata goes out with its types in the version's form.
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  entity.sendMetadata = (data) => {
    if (entity.itemId !== undefined) {
      if (entity.itemCount === undefined) return
      data = [{ key: ITEM_STACK_KEY, type: 'item_stack', value: Item.toNotch(new Item(entity.itemId, entity.itemCount)) }]
    }
    if (!data || !data.length) return
    entity._writeOthersNearby('entity_metadata', { entityId: entity.id, metadata: metadataFor(registry, data) })
  }
}

module.exports.player = function (player, serv) {
  // flying-squid's own inventory plugin runs after this one: set up once every plugin has run.
  player.once('asap', () => setUp(player, serv))
}

function setUp (player, serv) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  const windowTypes = require('prismarine-windows')(registry).windows
  const state = { cursor: null, drag: null, stateId: 1, window: null, nextWindowId: 0 }
  player.mindpyWindowState = state

  const inv = player.inventory
  const get = i => inv.slots[i] || null
  const set = (i, item) => { inv.slots[i] = item && item.count > 0 ? Object.assign(item, { slot: i }) : null }

  // ---- views --------------------------------------------------------------------------------------
  const playerRanges = { main: [9, 36], hotbar: [36, 45], all: [9, 45] }
  function playerView () {
    return {
      size: PLAYER_WINDOW_SIZE,
      craftingSlots: 5,
      get,
      set,
      isResult: i => i === 0,
      takeResult: () => player.mindpyCraftGrid ? player.mindpyCraftGrid.take(playerGrid()) : null,
      mayPlace: (i, item) => mayPlaceInPlayerSlot(i, item),
      quickMoveTargets: (i, item) => quickMoveInPlayerWindow(i, item),
      hotbarSlot: n => HOTBAR_START + n,
      offhandSlot: 45,
      after: () => refreshPlayerGrid()
    }
  }

  // Where a shift-click sends an item in the player window (vanilla's order): crafted results to the
  // hotbar end first; armour and shields to their empty slot; main <-> hotbar; the rest to main+hotbar.
  function quickMoveInPlayerWindow (i, item) {
    if (i === 0) return [[44, 8, -1]]
    if (i < 9 || i === 45) return [playerRanges.all]
    const rest = i >= 36 ? playerRanges.main : playerRanges.hotbar
    const armor = { head: 5, torso: 6, legs: 7, feet: 8 }[armorSlotOf(item)]
    if (armor && !get(armor)) return [[armor, armor + 1], rest]
    if (registry.items[item.type]?.name === 'shield' && !get(45)) return [[45, 46], rest]
    return [rest]
  }

  function mayPlaceInPlayerSlot (i, item) {
    if (i === 0) return false
    if (i >= 5 && i <= 8) {
      const wanted = { 5: 'head', 6: 'torso', 7: 'legs', 8: 'feet' }[i]
      return armorSlotOf(item) === wanted
    }
    return true
  }

  function armorSlotOf (item) {
    const name = registry.items[item.type]?.name || ''
    if (/_helmet$|carved_pumpkin|_head$|_skull$|turtle_helmet/.test(name)) return 'head'
    if (/_chestplate$|^elytra$/.test(name)) return 'torso'
    if (/_leggings$/.test(name)) return 'legs'
    if (/_boots$/.test(name)) return 'feet'
    return null
  }

  // The 2x2 grid of the player's own inventory, as a grid object for the crafting plugin.
  function playerGrid () {
    return { width: 2, height: 2, get: k => get(1 + k), set: (k, item) => set(1 + k, item), setResult: item => set(0, item) }
  }

  function refreshPlayerGrid () {
    if (player.mindpyCraftGrid) player.mindpyCraftGrid.refresh(playerGrid())
  }

  // A container window: its own slots first, then the player's main inventory and hotbar.
  function containerView (spec) {
    const n = spec.size
    const toPlayer = i => (i < n + 27 ? 9 + (i - n) : 36 + (i - n - 27))
    return {
      size: n + 36,
      craftingSlots: spec.craftingSlots || 0,
      get: i => (i < n ? spec.get(i) : get(toPlayer(i))),
      set: (i, item) => (i < n ? spec.set(i, item && item.count > 0 ? item : null) : set(toPlayer(i), item)),
      isResult: i => i < n && !!spec.isResult && spec.isResult(i),
      takeResult: i => spec.takeResult(i),
      mayPlace: (i, item) => (i < n ? (spec.mayPlace ? spec.mayPlace(i, item) : true) : true),
      // container -> player inventory, hotbar end first (as vanilla); player -> where the window says
      // ('swap' = between main inventory and hotbar)
      quickMoveTargets: (i, item) => {
        if (i < n) return [[n + 36 - 1, n - 1, -1]]
        const swap = i < n + 27 ? [n + 27, n + 36] : [n, n + 27]
        const into = spec.quickMoveInto ? spec.quickMoveInto(item) : [[0, n]]
        return into.map(range => (range === 'swap' ? swap : range))
      },
      hotbarSlot: k => n + 27 + k,
      after: () => spec.after && spec.after()
    }
  }

  // ---- syncing ------------------------------------------------------------------------------------
  // What the client believes each open window holds (item signatures), so that after a click only the
  // slots where client and server disagree are sent back, as vanilla does. Resending everything would
  // overwrite a client's predictions in the middle of a multi-click sequence (mineflayer's craft()).
  const believed = { 0: [] }
  const sig = item => (item ? `${item.type}:${item.count}` : '')

  function nextStateId () {
    state.stateId = (state.stateId + 1) & 0x7fff
    return state.stateId
  }

  function sendWindow (windowId, view) {
    const items = []
    believed[windowId] = []
    for (let i = 0; i < view.size; i++) {
      items.push(Item.toNotch(view.get(i)))
      believed[windowId][i] = sig(view.get(i))
    }
    believed.cursor = sig(state.cursor)
    player._client.write('window_items', {
      windowId,
      stateId: nextStateId(),
      items,
      carriedItem: Item.toNotch(state.cursor)
    })
  }

  function sendSlot (windowId, slot, item) {
    if (believed[windowId]) believed[windowId][slot] = sig(item)
    player._client.write('set_slot', { windowId, stateId: nextStateId(), slot, item: Item.toNotch(item) })
  }

  // After a click: take in the client's prediction, then correct what differs.
  function reconcile (windowId, view, click) {
    const mine = believed[windowId] || (believed[windowId] = [])
    // vanilla sends the crafting result after every change of the grid; mineflayer waits for it after
    // any click on the grid or the result
    const touchedGrid = click.slot >= 0 && click.slot < (view.craftingSlots || 0)
    for (const changed of click.changedSlots || []) {
      const item = changed.item ? Item.fromNotch(changed.item) : null
      mine[changed.location] = sig(item)
    }
    believed.cursor = sig(click.cursorItem ? Item.fromNotch(click.cursorItem) : null)
    if (believed.cursor !== sig(state.cursor)) {
      // the cursor can only be corrected through a whole-window update (mineflayer ignores cursor set_slot)
      sendWindow(windowId, view)
      return
    }
    // The result slot goes last: mineflayer carries on once it sees it, and a click sent before the
    // other corrections arrived would be stale.
    const results = []
    for (let i = 0; i < view.size; i++) {
      const truth = view.get(i)
      if (view.isResult(i)) {
        if (mine[i] !== sig(truth) || touchedGrid) results.push(i)
      } else if (mine[i] !== sig(truth)) sendSlot(windowId, i, truth)
    }
    for (const i of results) sendSlot(windowId, i, view.get(i))
  }

  // Give the client a valid state id at once: a client that has never had one clicks with -1, which asks
  // for a whole-window resend that can land in the middle of its next clicks.
  player.once('spawned', () => sendWindow(0, playerView()))

  player.mindpySyncInventory = () => {
    if (state.window) sendWindow(state.window.id, containerView(state.window.spec))
    sendWindow(0, playerView())
  }
  // Something other than this player's clicks changed the open window (a furnace cooked, another player
  // took from the same chest): send the slots that changed, as vanilla does every tick.
  player.mindpyRefreshWindow = () => {
    const open = state.window
    if (!open) return
    const view = containerView(open.spec)
    const mine = believed[open.id] || []
    for (let i = 0; i < view.size; i++) {
      if (mine[i] !== sig(view.get(i))) sendSlot(open.id, i, view.get(i))
    }
  }

  // Keep flying-squid's per-slot updates (give, pickup, digging, block placing) but stamp them with a
  // state id, which 1.17+ clients track. While a container is open, its copy of the player's slots is
  // the one the client shows (and copies back into its inventory on closing): update that one.
  inv.removeAllListeners('updateSlot')
  inv.on('updateSlot', (slot, oldItem, newItem) => {
    const open = state.window
    if (open && slot >= 9 && slot < 45) sendSlot(open.id, open.spec.size + slot - 9, newItem)
    else sendSlot(0, slot, newItem)
    updateEquipment(slot)
  })

  function updateEquipment (slot) {
    const equipmentSlot = { 5: 5, 6: 4, 7: 3, 8: 2, 45: 1 }[slot] ?? (slot === HOTBAR_START + player.heldItemSlot ? 0 : undefined)
    if (equipmentSlot === undefined) return
    const item = get(slot)
    player._writeOthersNearby('entity_equipment', { entityId: player.id, equipments: [{ slot: equipmentSlot, item: Item.toNotch(item) }] })
  }

  // ---- dropping -----------------------------------------------------------------------------------
  function throwFromPlayer (item) {
    if (!item || item.count <= 0) return
    // flying-squid keeps yaw and pitch as signed bytes (1/256 of a turn); the look direction in Minecraft
    // is (-sin yaw cos pitch, -sin pitch, cos yaw cos pitch)
    const yaw = (player.yaw || 0) * 2 * Math.PI / 256
    const pitch = (player.pitch || 0) * 2 * Math.PI / 256
    const direction = new Vec3(-Math.sin(yaw) * Math.cos(pitch), -Math.sin(pitch), Math.cos(yaw) * Math.cos(pitch))
    const velocity = direction.scaled(3.5).offset(0, 2.5, 0)
    serv.mindpyDropItem(player.world, player.position.offset(0, 1.3, 0), item, {
      velocity, pickupDelay: TOSS_PICKUP_DELAY_MS, thrower: player
    })
  }
  player.mindpyThrow = throwFromPlayer

  // ---- clicks -------------------------------------------------------------------------------------
  player._client.removeAllListeners('window_click')
  player._client.on('window_click', (click) => {
    try {
      const open = state.window
      if (click.windowId !== 0 && (!open || open.id !== click.windowId)) {
        // a click on a window that is no longer open (or a resync request): send the truth
        if (open) sendWindow(open.id, containerView(open.spec))
        sendWindow(0, playerView())
        return
      }
      const view = click.windowId === 0 ? playerView() : containerView(open.spec)
      applyClick(Item, view, state, click, throwFromPlayer)
      view.after()
      for (const i of [5, 6, 7, 8, 45, HOTBAR_START + player.heldItemSlot]) updateEquipment(i)
      // A click made before the client saw our last update was predicted on an old state: as vanilla
      // does, answer it with the whole window (the last click of a burst then leaves the client right).
      if (click.stateId !== state.stateId) sendWindow(click.windowId, view)
      else reconcile(click.windowId, view, click)
    } catch (err) {
      serv.err?.(`[mindpy] window click failed for ${player.username}: ${err.stack}`)
      player.mindpySyncInventory()
    }
  })

  // Q / Ctrl+Q with the held item (block_dig status 4 = drop one, 3 = drop stack). flying-squid answers
  // these packets too (dropping a second time): our first listener throws the items and hides the held
  // slot from flying-squid's listener, which runs next; our last listener puts what is left back.
  let heldWhileDropping = null
  player._client.prependListener('block_dig', ({ status }) => {
    if (status !== 3 && status !== 4) return
    const slot = HOTBAR_START + player.heldItemSlot
    const item = get(slot)
    if (!item) return
    const count = status === 4 ? 1 : item.count
    throwFromPlayer(new Item(item.type, count, item.metadata))
    heldWhileDropping = { slot, item, rest: item.count > count ? new Item(item.type, item.count - count, item.metadata) : null }
    inv.slots[slot] = null
  })
  player._client.on('block_dig', () => {
    if (!heldWhileDropping) return
    const { slot, item, rest } = heldWhileDropping
    heldWhileDropping = null
    set(slot, rest)
    inv.emit('updateSlot', slot, item, rest)
  })

  // ---- opening and closing container windows --------------------------------------------------------
  player.mindpyOpenWindow = (spec) => {
    if (state.window) closeWindow(false)
    state.nextWindowId = state.nextWindowId % 100 + 1
    const id = state.nextWindowId
    state.window = { id, spec }
    player._client.write('open_window', {
      windowId: id,
      inventoryType: windowTypes[spec.type].type,
      windowTitle: serv._createChatComponent({ text: spec.title || '' }).toNetworkFormat()
    })
    sendWindow(id, containerView(spec))
    spec.onOpen && spec.onOpen(id)
    if (spec.block) watchBlock(state.window)
    return id
  }

  // As in vanilla, the window of a block closes when the player is more than 8 blocks from it or the block
  // is gone (spec.block = {position, name}).
  function watchBlock (window) {
    const { position, name } = window.spec.block
    const centre = position.offset(0.5, 0.5, 0.5)
    const timer = setInterval(async () => {
      try {
        if (state.window !== window) return clearInterval(timer)
        const far = player.position.distanceTo(centre) > 8
        const block = far ? null : await player.world.getBlock(position)
        if (state.window !== window) return clearInterval(timer)
        if (far || !block || block.name !== name) {
          clearInterval(timer)
          closeWindow(false)
        }
      } catch (err) {
        clearInterval(timer)
        serv.err?.(`[mindpy] window check for ${player.username}: ${err.stack}`)
      }
    }, 500)
    timer.unref?.()
  }

  function closeWindow (fromClient) {
    const open = state.window
    state.window = null
    if (state.cursor) {
      const left = player.mindpyGive(state.cursor)
      state.cursor = null
      if (left) throwFromPlayer(left)
    }
    if (open) {
      open.spec.onClose && open.spec.onClose()
      if (!fromClient) player._client.write('close_window', { windowId: open.id })
    }
    // anything left in the 2x2 grid goes back to the inventory, as in vanilla
    if (fromClient && (!open)) returnPlayerGrid()
    sendWindow(0, playerView())
  }
  player.mindpyCloseWindow = () => closeWindow(false)
  player.mindpyCurrentWindow = () => state.window

  function returnPlayerGrid () {
    for (let k = 1; k <= 4; k++) {
      const item = get(k)
      if (!item) continue
      set(k, null)
      const left = player.mindpyGive(item)
      if (left) throwFromPlayer(left)
    }
    set(0, null)
  }

  player._client.on('close_window', ({ windowId }) => {
    if (state.window && windowId === state.window.id) closeWindow(true)
    else if (windowId === 0) closeWindow(true)
  })

  // Leaving: let an open window go (a crafting table gives its grid back, a chest forgets its viewer), and
  // put what was held and what lay in the 2x2 grid back into the inventory, as vanilla does (without
  // packets: the client is gone).
  player.once('disconnected', () => {
    const open = state.window
    state.window = null
    const giveBack = item => (item ? insert(Item, playerView(), item, [[36, 45], [9, 36]]) : null)
    if (open && open.spec.onClose) {
      player.mindpyGive = giveBack
      open.spec.onClose()
    }
    throwFromPlayer(giveBack(state.cursor))
    state.cursor = null
    for (let k = 1; k <= 4; k++) { const item = get(k); set(k, null); throwFromPlayer(giveBack(item)) }
    set(0, null)
  })

  // ---- giving and picking up -------------------------------------------------------------------------
  // Add an item to the inventory like vanilla (existing stacks first, then empty slots, hotbar first).
  player.mindpyGive = (item) => {
    const before = inv.slots.map(it => (it ? `${it.type}:${it.count}` : ''))
    const left = insert(Item, playerView(), item, [[36, 45], [9, 36]])
    for (let i = 9; i < 45; i++) {
      const now = get(i)
      if ((now ? `${now.type}:${now.count}` : '') !== before[i]) inv.emit('updateSlot', i, null, now)
    }
    return left
  }

  // flying-squid offers an item to the first player its search returns: hand it to the nearest one that
  // may take it instead (the thrower only after its delay), so a toss to a player in a crowd reaches them.
  player.collect = (entity) => {
    if (entity.itemId === undefined) return
    const mayTake = p => p.mindpyTake && !(entity.mindpyThrower === p && Date.now() - entity.bornTime < THROWER_PICKUP_DELAY_MS)
    const takers = serv.getNearby({ world: entity.world, position: entity.position, radius: PICKUP_RADIUS }).filter(mayTake)
    takers.sort((a, b) => a.position.distanceTo(entity.position) - b.position.distanceTo(entity.position))
    for (const taker of takers) if (taker.mindpyTake(entity)) break  // a full inventory leaves it to the next
  }

  player.mindpyTake = (entity) => {
    const item = new Item(entity.itemId, entity.itemCount || 1, entity.itemDamage)
    const before = item.count
    const left = player.mindpyGive(item)
    const taken = before - (left ? left.count : 0)
    if (taken <= 0) return false
    entity._writeOthersNearby('collect', { collectedEntityId: entity.id, collectorEntityId: player.id, pickupItemCount: taken })
    player._client.write('collect', { collectedEntityId: entity.id, collectorEntityId: player.id, pickupItemCount: taken })
    if (left) {
      entity.itemCount = left.count
      entity.sendMetadata()
    } else {
      entity.destroy()
    }
    return true
  }
}
