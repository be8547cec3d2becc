// The browser side of the example: the topics the contract declares, and a capture checked against
// the contract in the browser (an in-process sender stands in for the service). Vite
// serves it (`npm run dev:payments-web`); edit ../payments.spec.json and the page follows.
import { capture, contractHash, topics } from '../payments.spec.json'
import { createLocalSender } from 'unplugin-contracts/runtime'

document.querySelector('#hash')!.textContent = contractHash
document.querySelector('#topics')!.replaceChildren(
  ...Object.values(topics).map((topic) => {
    const item = document.createElement('li')
    item.dataset.topic = topic.topic
    item.textContent = `${topic.topic}${topic.version ? ` ${topic.version}` : ''}`
    return item
  }),
)

const service = createLocalSender({
  'payments:capture': (request) => ({ status: 'ok', payload: { ...(request as object), PaymentId: 'pay-1' } }),
})
// Amount must be a number: the request is refused before it reaches the sender.
const refused = await capture.send(service, { OrderId: 'order-1', Amount: 'lots' as unknown as number })
document.querySelector('#checked')!.textContent = refused.isSuccessful ? 'sent' : `${refused.status}: ${refused.errors.map((e) => e.message).join('; ')}`
