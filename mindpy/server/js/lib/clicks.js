'use strict'
// The rules of inventory clicks (the 1.17+ window_click modes), applied by the server to a "view":
// an object describing one open window's slots. The server is the authority: after each click the
// inventory plugin sends back whatever the client predicted differently.
//
// A view has: size; get(i) / set(i, item); isResult(i); takeResult() -> item crafted once (ingredients
// consumed) or null; mayPlace(i, item); quickMoveTargets(i, item) -> ordered list of [start, end) ranges;
// and after(): called once after the click (recompute crafting results, etc.).

function sameKind (a, b) {
  return a && b && a.type === b.type && JSON.stringify(a.components || a.nbt || null) === JSON.stringify(b.components || b.nbt || null)
}

function withCount (Item, item, count) {
  if (!item || count <= 0) return null
  const copy = new Item(item.type, count, item.metadata, item.nbt)
  if (item.components) copy.components = item.components
  return copy
}

// Put as much of `item` as fits into ranges (merging with same items first, then empty slots).
// Returns what is left over (or null).
function insert (Item, view, item, ranges) {
  let left = item ? item.count : 0
  if (!left) return null
  for (const pass of ['merge', 'empty']) {
    for (const [start, end, step = 1] of ranges) {
      for (let i = start; step > 0 ? i < end : i > end; i += step) {
        if (!left) break
        const here = view.get(i)
        if (view.isResult(i) || !view.mayPlace(i, item)) continue
        if (pass === 'merge' && sameKind(here, item) && here.count < here.stackSize) {
          const moved = Math.min(left, here.stackSize - here.count)
          view.set(i, withCount(Item, here, here.count + moved))
          left -= moved
        } else if (pass === 'empty' && !here) {
          const moved = Math.min(left, item.stackSize)
          view.set(i, withCount(Item, item, moved))
          left -= moved
        }
      }
    }
  }
  return withCount(Item, item, left)
}

// Apply one click. `state` holds the cursor (state.cursor) and drag bookkeeping; drop(item) throws an item.
function applyClick (Item, view, state, click, drop) {
  const { slot, mouseButton: button, mode } = click
  const inRange = slot >= 0 && slot < view.size
  switch (mode) {
    case 0: return pickup(Item, view, state, slot, button, inRange, drop)
    case 1: return quickMove(Item, view, slot, inRange)
    case 2: return swapHotbar(Item, view, slot, button, inRange, state)
    case 4: return dropFromSlot(Item, view, state, slot, button, inRange, drop)
    case 5: return drag(Item, view, state, slot, button, inRange)
    case 6: return collectAll(Item, view, state, slot, inRange)
    default: return false // middle click (creative clone) does nothing in survival
  }
}

function pickup (Item, view, state, slot, button, inRange, drop) {
  const cursor = state.cursor
  if (slot === -999) {
    if (!cursor) return false
    if (button === 0) { drop(cursor); state.cursor = null } else {
      drop(withCount(Item, cursor, 1))
      state.cursor = withCount(Item, cursor, cursor.count - 1)
    }
    return true
  }
  if (!inRange) return false
  if (view.isResult(slot)) {
    const result = view.get(slot)
    if (!result) return false
    if (cursor && (!sameKind(cursor, result) || cursor.count + result.count > cursor.stackSize)) return false
    const crafted = view.takeResult(slot)
    if (!crafted) return false
    state.cursor = cursor ? withCount(Item, cursor, cursor.count + crafted.count) : crafted
    return true
  }
  const here = view.get(slot)
  if (button === 0) {
    if (!cursor) {
      if (!here) return false
      state.cursor = here
      view.set(slot, null)
    } else if (!here) {
      if (!view.mayPlace(slot, cursor)) return false
      view.set(slot, cursor)
      state.cursor = null
    } else if (sameKind(here, cursor)) {
      const moved = Math.min(cursor.count, here.stackSize - here.count)
      view.set(slot, withCount(Item, here, here.count + moved))
      state.cursor = withCount(Item, cursor, cursor.count - moved)
    } else {
      if (!view.mayPlace(slot, cursor)) return false
      view.set(slot, cursor)
      state.cursor = here
    }
  } else {
    if (!cursor) {
      if (!here) return false
      const taken = Math.ceil(here.count / 2)
      state.cursor = withCount(Item, here, taken)
      view.set(slot, withCount(Item, here, here.count - taken))
    } else if (!here) {
      if (!view.mayPlace(slot, cursor)) return false
      view.set(slot, withCount(Item, cursor, 1))
      state.cursor = withCount(Item, cursor, cursor.count - 1)
    } else if (sameKind(here, cursor)) {
      if (here.count >= here.stackSize) return false
      view.set(slot, withCount(Item, here, here.count + 1))
      state.cursor = withCount(Item, cursor, cursor.count - 1)
    } else {
      if (!view.mayPlace(slot, cursor)) return false
      view.set(slot, cursor)
      state.cursor = here
    }
  }
  return true
}

function quickMove (Item, view, slot, inRange) {
  if (!inRange) return false
  if (view.isResult(slot)) {
    // craft as many times as the ingredients allow and the inventory has room for
    let crafted = 0
    for (let i = 0; i < 64; i++) {
      const result = view.get(slot)
      if (!result) break
      const ranges = view.quickMoveTargets(slot, result)
      if (!fits(view, result, ranges)) break
      const made = view.takeResult(slot)
      if (!made) break
      insert(Item, view, made, ranges)
      crafted++
    }
    return crafted > 0
  }
  const item = view.get(slot)
  if (!item) return false
  const left = insert(Item, view, item, view.quickMoveTargets(slot, item))
  view.set(slot, left)
  return !left || left.count !== item.count
}

function fits (view, item, ranges) {
  let room = 0
  for (const [start, end, step = 1] of ranges) {
    for (let i = start; step > 0 ? i < end : i > end; i += step) {
      const here = view.get(i)
      if (view.isResult(i) || !view.mayPlace(i, item)) continue
      if (!here) room += item.stackSize
      else if (sameKind(here, item)) room += here.stackSize - here.count
      if (room >= item.count) return true
    }
  }
  return false
}

function swapHotbar (Item, view, slot, button, inRange, state) {
  // a vanilla client does not send number-key swaps while the cursor holds an item
  if (!inRange || !view.hotbarSlot || state.cursor) return false
  const other = button === 40 ? view.offhandSlot : view.hotbarSlot(button)
  if (other === undefined || other === null || other === slot) return false
  const a = view.get(slot)
  const b = view.get(other)
  if (view.isResult(slot)) {
    if (b || !a) return false
    const made = view.takeResult(slot)
    if (made) view.set(other, made)
    return !!made
  }
  if (b && !view.mayPlace(slot, b)) return false
  view.set(slot, b)
  view.set(other, a)
  return true
}

function dropFromSlot (Item, view, state, slot, button, inRange, drop) {
  if (!inRange) return false
  if (view.isResult(slot)) {
    const made = view.takeResult(slot)
    if (made) drop(made)
    return !!made
  }
  const item = view.get(slot)
  if (!item) return false
  if (button === 0) {
    drop(withCount(Item, item, 1))
    view.set(slot, withCount(Item, item, item.count - 1))
  } else {
    drop(item)
    view.set(slot, null)
  }
  return true
}

// Dragging the cursor across slots: left spreads evenly, right puts one in each.
function drag (Item, view, state, slot, button, inRange) {
  if (slot === -999 && (button === 0 || button === 4)) {
    state.drag = { right: button === 4, slots: [] }
    return false
  }
  if (button === 1 || button === 5) {
    if (state.drag && inRange && !state.drag.slots.includes(slot)) state.drag.slots.push(slot)
    return false
  }
  if (slot === -999 && (button === 2 || button === 6)) {
    const plan = state.drag
    state.drag = null
    const cursor = state.cursor
    if (!plan || !cursor) return false
    const targets = plan.slots.filter(i => !view.isResult(i) && view.mayPlace(i, cursor) &&
      (!view.get(i) || (sameKind(view.get(i), cursor) && view.get(i).count < cursor.stackSize)))
    if (!targets.length) return false
    const each = plan.right ? 1 : Math.max(1, Math.floor(cursor.count / targets.length))
    let left = cursor.count
    for (const i of targets) {
      if (left <= 0) break
      const here = view.get(i)
      const room = here ? here.stackSize - here.count : cursor.stackSize
      const moved = Math.min(each, room, left)
      view.set(i, withCount(Item, cursor, (here ? here.count : 0) + moved))
      left -= moved
    }
    state.cursor = withCount(Item, cursor, left)
    return true
  }
  return false
}

// Double click: gather items of the cursor's kind onto the cursor.
function collectAll (Item, view, state, slot, inRange) {
  const cursor = state.cursor
  if (!cursor) return false
  let count = cursor.count
  for (let i = 0; i < view.size && count < cursor.stackSize; i++) {
    const here = view.get(i)
    if (!sameKind(here, cursor) || view.isResult(i)) continue
    const moved = Math.min(here.count, cursor.stackSize - count)
    view.set(i, withCount(Item, here, here.count - moved))
    count += moved
  }
  state.cursor = withCount(Item, cursor, count)
  return true
}

module.exports = { applyClick, insert, fits, sameKind, withCount }
