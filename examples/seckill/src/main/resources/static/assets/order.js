// The result page: its own URL (order.html?orderNo=... or ?reservation=...), reached by a redirect
// after the purchase. It only reads, so a reload or Back never sends the purchase again.
'use strict';

(() => {
  const { t } = OO;
  const $ = id => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  OO.translate();

  if (!OO.session.get()) {
    location.replace('./');
    return;
  }

  const names = new Map();   // productId -> name

  function show(order) {
    $('result-title').textContent = t('orderTitle', order.orderNo);
    document.title = t('orderTitle', order.orderNo) + ' · ' + t('appTitle');
    $('order-details').hidden = false;
    $('order-no').textContent = order.orderNo;
    const name = names.get(order.productId) || t('product', order.productId);
    $('order-what').textContent = order.activityId != null ? t('saleProduct', name, order.activityId) : name;
    $('order-amount').textContent = '¥ ' + OO.money(order.amount);
    $('order-status').textContent = t('status.' + order.status);
    $('order-created').textContent = OO.when(order.createdAt);
    $('cancel-button').hidden = order.status !== 'UNPAID';
    $('pay-button').hidden = order.status !== 'UNPAID' || !demoMode;
  }

  let demoMode = false;
  const orderNo = params.get('orderNo');
  const reservation = params.get('reservation');

  async function loadOrder(focus) {
    const answer = await OO.call('GET', '/api/orders/' + encodeURIComponent(orderNo));
    if (!answer.ok) {
      $('result-title').textContent = t('failedTitle');
      OO.say($('result-message'), OO.problemText(answer));
      return;
    }
    show(answer.data);
    if (focus) $('result-title').focus();
  }

  async function action(button, kind) {
    await OO.orderAction(button, orderNo, kind, $('result-message'));
    loadOrder(false);
  }

  /** Follows a queued purchase (the fast path's 202) until it is an order or failed. */
  async function follow() {
    $('result-title').textContent = t('queuedTitle');
    OO.say($('result-message'), t('queued'), '');
    for (;;) {
      const answer = await OO.call('GET', '/api/seckill/reservations/' + encodeURIComponent(reservation));
      const status = answer.ok && answer.data ? answer.data.status : null;
      if (status === 'ORDERED' && answer.data.orderNo) {
        location.replace(OO.orderPage(answer.data.orderNo));
        return;
      }
      if (status === 'FAILED' || (!answer.ok && answer.status !== 0 && answer.status < 500)) {
        $('result-title').textContent = t('failedTitle');
        const reason = answer.ok && typeof answer.data.reason === 'string' ? answer.data.reason : '';
        OO.say($('result-message'), answer.ok
          ? (OO.knownText(reason.substring(reason.lastIndexOf(':') + 1)) || t('reservationFailed'))
          : OO.problemText(answer));
        return;
      }
      await new Promise(r => setTimeout(r, 1000));
    }
  }

  $('pay-button').addEventListener('click', () => action($('pay-button'), 'pay'));
  $('cancel-button').addEventListener('click', () => action($('cancel-button'), 'cancel'));

  (async () => {
    demoMode = await OO.demoMode();
    const products = await OO.call('GET', '/api/products');
    if (products.ok && Array.isArray(products.data)) products.data.forEach(p => names.set(p.id, p.name));
    if (orderNo) {
      if (params.get('placed')) OO.say($('result-message'), t('orderPlaced'), 'ok');
      await loadOrder(true);
    } else if (reservation) {
      await follow();
    } else {
      $('result-title').textContent = t('failedTitle');
      OO.say($('result-message'), t('noOrderGiven'));
    }
  })();
})();
