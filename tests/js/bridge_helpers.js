'use strict'
// Test helpers for the bridge's transport: a call that answers late, and an echo.

// Resolve with `value` after `ms` milliseconds.
function answerAfter (ms, value) {
  return new Promise(resolve => setTimeout(() => resolve(value), ms))
}

// Return the value given, at once.
function echo (value) {
  return value
}

module.exports = { answerAfter, echo }
