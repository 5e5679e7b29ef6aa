import { useNavigate } from '@remix-run/react'
import { useRef, type FormEvent } from 'react'
import { useT } from '#app/root.tsx'
import { CHAT_MESSAGE_MAX } from '#app/schemas/chat.ts'

/**
 * The home page's question box (issue 29, "Pages"): it opens the chat with the question. Without JavaScript it
 * is a form post to `/chat`, which answers and leads to the conversation; with JavaScript it moves to `/chat`
 * carrying the question, where the answer streams in.
 */
export function QuestionBox() {
  const t = useT()
  const navigate = useNavigate()
  const box = useRef<HTMLInputElement>(null)

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    const question = box.current?.value.trim() ?? ''
    if (question === '') return
    event.preventDefault()
    navigate('/chat', { state: { ask: question } })
  }

  return (
    <form method="post" action="/chat" className="home-ask" onSubmit={onSubmit} data-testid="home-ask">
      <label htmlFor="home-ask-message">{t('chat.home.label')}</label>
      <div className="home-find-row">
        <input
          id="home-ask-message"
          name="message"
          ref={box}
          required
          maxLength={CHAT_MESSAGE_MAX}
          autoComplete="off"
          aria-describedby="home-ask-hint"
        />
        <button type="submit">{t('chat.home.submit')}</button>
      </div>
      <p id="home-ask-hint" className="muted small">
        {t('chat.home.hint')}
      </p>
    </form>
  )
}
