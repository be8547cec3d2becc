import { createLocalSender, fail, type LocalHandler } from 'unplugin-contracts/runtime'
import type { CapturePayment, PaymentDto, RefundPayment } from '../payments.spec.json'

/**
 * A stand-in for the payments service: the same topics, answered in process. Swap it for a sender
 * that reaches the real service; the generated clients do not change.
 */
const payments = new Map<string, PaymentDto>()

const capture: LocalHandler = (request) => {
  const { OrderId, Amount, Currency } = request as CapturePayment
  if (!OrderId || !(Amount! > 0)) return fail('validation-error', [{ message: 'an order and a positive amount are required', path: '/Amount' }])
  const payment: PaymentDto = { PaymentId: `pay-${payments.size + 1}`, OrderId, Amount, Currency, Status: 'captured', Refunds: [] }
  payments.set(payment.PaymentId!, payment)
  return payment
}

const refund: LocalHandler = (request) => {
  const { PaymentId, Amount } = request as RefundPayment
  const payment = payments.get(PaymentId)
  if (!payment) return fail('not-found', [{ message: `no payment ${PaymentId}`, path: '/PaymentId' }])
  const refunded: PaymentDto = { ...payment, PaymentId: `${PaymentId}-r`, Amount: Amount ?? payment.Amount, Status: 'refunded' }
  payments.set(PaymentId, { ...payment, Refunds: [...(payment.Refunds ?? []), refunded] })
  return refunded
}

export const paymentService = createLocalSender({
  'payments:capture': capture,
  'payments:refund': refund,
  'payments:get-all': () => [...payments.values()],
})
