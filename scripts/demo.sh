#!/usr/bin/env bash
# The walk-through of examples/seckill/README.md ("Walk-through with curl"), step by step, against a
# running service, checking that every answer is the documented one. Exits 0 when all are, 1 at the
# first that is not (printing what came instead), 2 when a tool is missing.
#
#   scripts/demo.sh [BASE_URL]        default http://localhost:8080 (start it with scripts/run.sh)
#
# Every run logs in as a new user and makes new business ids, so it passes again and again against
# the same service. The payment notice is signed with SECKILL_PAYMENT_SECRET (default: the demo
# secret of the demo mode). Needs curl, jq and openssl (apt-get install curl jq openssl).
set -euo pipefail

B=${1:-http://localhost:8080}
B=${B%/}
SECRET=${SECKILL_PAYMENT_SECRET:-demo-only-payment-secret-change-me-0123456789}

for tool in curl jq openssl; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "[demo] needs $tool: apt-get install -y curl jq openssl" >&2
    exit 2
  fi
done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
STEPS=0

# call METHOD PATH [curl arguments...]: the answer in STATUS, BODY and the headers file
call() {
  local method=$1 path=$2
  shift 2
  STATUS=$(curl -s -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' -X "$method" "$B$path" "$@") || {
    echo "[demo] FAILED: cannot reach $B$path (is the service running? scripts/run.sh)" >&2
    exit 1
  }
  BODY=$(cat "$TMP/body")
}
# call_twice METHOD PATH [curl arguments...]: the same request twice at once; use_answer 1 or 2 then
# puts that answer in STATUS, BODY and the headers file, and DUPLICATE names the other one
call_twice() {
  local method=$1 path=$2 i pids=()
  shift 2
  for i in 1 2; do
    curl -s -o "$TMP/body$i" -D "$TMP/headers$i" -w '%{http_code}' -X "$method" "$B$path" "$@" >"$TMP/status$i" &
    pids+=("$!")
  done
  for i in "${pids[@]}"; do
    wait "$i" || {
      echo "[demo] FAILED: cannot reach $B$path (is the service running? scripts/run.sh)" >&2
      exit 1
    }
  done
  STATUS_1=$(cat "$TMP/status1") STATUS_2=$(cat "$TMP/status2")
  BODY_1=$(cat "$TMP/body1") BODY_2=$(cat "$TMP/body2")
}
use_answer() {
  STATUS=$(cat "$TMP/status$1")
  BODY=$(cat "$TMP/body$1")
  cp "$TMP/headers$1" "$TMP/headers"
  DUPLICATE=$((3 - $1))
}
fail() {
  echo "[demo] FAILED at step $STEPS: $*" >&2
  echo "[demo] the answer was: $STATUS $BODY" >&2
  exit 1
}
step() {
  STEPS=$((STEPS + 1))
  echo
  echo "== $STEPS. $*"
}
show() {
  echo "   -> $STATUS $(echo "$BODY" | head -c 300)"
}
expect_status() {
  show
  [ "$STATUS" = "$1" ] || fail "expected HTTP $1"
}
field() {
  echo "$BODY" | jq -r "$1"
}
expect_field() {
  local actual
  actual=$(field "$1")
  [ "$actual" = "$2" ] || fail "expected $1 = $2, got $actual"
}
expect_problem() {
  expect_status "$1"
  expect_field '.type' "urn:onlyonce:problem:$2"
}
header() {
  grep -i "^$1:" "$TMP/headers" | head -n 1 | cut -d' ' -f2- | tr -d '\r'
}
JSON=(-H 'Content-Type: application/json')

echo "[demo] walking through the seckill API at $B"

# ---------------------------------------------------------------- 1. log in
step "log in as a new user (DEMO ONLY: no password; the user id is made on first login)"
USERNAME="alice-$(date +%s)-$RANDOM"
call POST /api/login "${JSON[@]}" -d "{\"username\":\"$USERNAME\"}"
expect_status 200
T=$(field .accessToken)
ID=$(field .userId)
AUTH=(-H "Authorization: Bearer $T")

step "the catalogue and the flash sale's live stock"
call GET /api/products "${AUTH[@]}"
expect_status 200
call GET /api/seckill/activities/1 "${AUTH[@]}"
expect_status 200
if [ "$(field .running)" != "true" ] || [ "$(field '[.products[].stock] | add')" = "0" ]; then
  echo "   the demo sale has ended or sold out: reopening and restocking it (demo mode)"
  call POST /api/demo/flash-sale/restock "${AUTH[@]}"
  expect_status 200
  expect_field .running true
fi

# ---------------------------------------------------------------- 2. the flash sale
step "a one-time token for this user and flash sale 1"
call POST /api/seckill/activities/1/tokens "${AUTH[@]}"
expect_status 201
TOKEN=$(field .token)

step "the flash-sale order with the token, sent twice at once (a double click): one order, one 429 duplicate-request"
# both copies leave together, so the second reaches the 1 s window (gateway layer) while it is open,
# however long the first takes to answer
ORDER_ARGS=("${AUTH[@]}" -H "Idempotency-Token: $TOKEN" "${JSON[@]}" -d '{"quantity":1}')
call_twice POST /api/seckill/activities/1/orders "${ORDER_ARGS[@]}"
if [ "$STATUS_2" = "429" ]; then
  use_answer 1
elif [ "$STATUS_1" = "429" ]; then
  use_answer 2
else
  STATUS="$STATUS_1 and $STATUS_2"
  BODY="$BODY_1 | $BODY_2"
  fail "expected one of the two to be 429 duplicate-request"
fi
if [ "$STATUS" = "202" ]; then
  # the fast path (seckill.fast-path.enabled, on with the redis profile): decided in Redis, the order
  # written by the queue's consumers; the reservation is followed below, after the window's answer
  show
  RESERVATION=$(field .reservationId)
  [ "$(header Location)" = "/api/seckill/reservations/$RESERVATION" ] || fail "expected Location: /api/seckill/reservations/$RESERVATION"
else
  expect_status 201
  expect_field .status UNPAID
  SALE_ORDER=$(field .orderNo)
  [ "$(header Location)" = "/api/orders/$SALE_ORDER" ] || fail "expected Location: /api/orders/$SALE_ORDER"
fi

# ---------------------------------------------------------------- 3. duplicates
step "the other copy: 429 duplicate-request (the 1 s window, gateway layer)"
use_answer "$DUPLICATE"
expect_problem 429 duplicate-request
[ -n "$(header Retry-After)" ] || fail "expected a Retry-After header"

if [ -n "${RESERVATION:-}" ]; then
  step "the fast path answered 202: follow the reservation until it is ORDERED"
  for _ in $(seq 1 100); do
    call GET "/api/seckill/reservations/$RESERVATION" "${AUTH[@]}"
    [ "$(field .status)" = "QUEUED" ] || break
    sleep 0.1
  done
  expect_status 200
  expect_field .status ORDERED
  SALE_ORDER=$(field .orderNo)
  call GET "/api/orders/$SALE_ORDER" "${AUTH[@]}"
  expect_status 200
  expect_field .status UNPAID
fi

step "again after a second: 409 duplicate-submission with the first order (token consumed, business layer)"
sleep 1.1
call POST /api/seckill/activities/1/orders "${AUTH[@]}" -H "Idempotency-Token: $TOKEN" "${JSON[@]}" -d '{"quantity":1}'
expect_problem 409 duplicate-submission
if [ -n "${RESERVATION:-}" ]; then
  expect_field .firstResult.reservationId "$RESERVATION"
else
  expect_field .firstResult.orderNo "$SALE_ORDER"
fi

step "a new token for the same sale: 409 live-order-exists with the order (one live order per user, data layer)"
sleep 1.1
call POST /api/seckill/activities/1/tokens "${AUTH[@]}"
expect_status 201
call POST /api/seckill/activities/1/orders "${AUTH[@]}" -H "Idempotency-Token: $(field .token)" "${JSON[@]}" -d '{"quantity":1}'
expect_problem 409 live-order-exists
expect_field .orderNo "$SALE_ORDER"

# ---------------------------------------------------------------- 4. a regular order
step "a regular order: the Idempotency-Key is a business id the client makes once per purchase intent"
BID="u${ID}_$(date +%s%3N)_a1B2c3"
call POST /api/orders "${AUTH[@]}" -H "Idempotency-Key: $BID" "${JSON[@]}" -d '{"productId":2,"quantity":1}'
expect_status 201
ORDER=$(field .orderNo)
AMOUNT=$(field .amount)
FIRST=$BODY

step "the same request again: the same 201, byte for byte, with Idempotent-Replayed: true"
call POST /api/orders "${AUTH[@]}" -H "Idempotency-Key: $BID" "${JSON[@]}" -d '{"productId":2,"quantity":1}'
expect_status 201
[ "$(header Idempotent-Replayed)" = "true" ] || fail "expected Idempotent-Replayed: true"
[ "$BODY" = "$FIRST" ] || fail "expected the first answer again: $FIRST"

step "the same key with another body: 422 idempotency-key-reused"
call POST /api/orders "${AUTH[@]}" -H "Idempotency-Key: $BID" "${JSON[@]}" -d '{"productId":2,"quantity":2}'
expect_problem 422 idempotency-key-reused

# ---------------------------------------------------------------- 5. the payment platform
step "the payment platform's notification for the regular order: X-Signature = hex(HMAC-SHA256(secret, body))"
NOTICE="{\"outTradeNo\":\"$ORDER\",\"amount\":$AMOUNT,\"tradeNo\":\"T-$ORDER\"}"
SIG=$(printf '%s' "$NOTICE" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.* //')
call POST /api/payments/callback -H "X-Signature: $SIG" "${JSON[@]}" -d "$NOTICE"
expect_status 200
expect_field .result SUCCESS
expect_field .status PAID
expect_field .duplicate false

step "the same notification again (the platform resends): the same SUCCESS, \"duplicate\": true, nothing changes"
call POST /api/payments/callback -H "X-Signature: $SIG" "${JSON[@]}" -d "$NOTICE"
expect_status 200
expect_field .status PAID
expect_field .duplicate true

# ---------------------------------------------------------------- 6. cancel, orders, statistics
step "cancel the unpaid flash-sale order (idempotent: again answers it unchanged, the stock comes back once)"
call POST "/api/orders/$SALE_ORDER/cancel" "${AUTH[@]}"
expect_status 200
expect_field .status CANCELLED
call POST "/api/orders/$SALE_ORDER/cancel" "${AUTH[@]}"
expect_status 200
expect_field .status CANCELLED

step "the paid order cannot be cancelled: 409 order-not-cancellable"
call POST "/api/orders/$ORDER/cancel" "${AUTH[@]}"
expect_problem 409 order-not-cancellable

step "my orders, newest first"
call GET /api/orders "${AUTH[@]}"
expect_status 200
[ "$(field '[.[].orderNo] | sort | join(" ")')" = "$(printf '%s\n' "$SALE_ORDER" "$ORDER" | sort | paste -sd ' ')" ] \
  || fail "expected orders $SALE_ORDER and $ORDER"

step "statistics: what each layer stopped, and the oversell check"
call GET /api/stats "${AUTH[@]}"
expect_status 200
expect_field .oversell.ok true

echo
echo "[demo] all $STEPS steps answered as documented"
