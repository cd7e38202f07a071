// The input area (spec §2, §5): a text box that grows up to 120px (Enter sends, Shift+Enter adds a line),
// file attachments, and Send. A message needs trimmed text or at least one uploaded file; files alone
// are sent with the text 'Files uploaded'.
import { useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { AttachmentList, useAttachments } from './attachments.tsx';
import { PaperclipIcon, SendIcon } from '../../../ui/icons.tsx';

export const FILES_ONLY_TEXT = 'Files uploaded';
export const MAX_INPUT_HEIGHT = 120;

type ChatInputProps = {
  agentId: number;
  disabled?: boolean;
  /** Resolves true when the message was sent (the box is then cleared). */
  onSend: (text: string, files: string[]) => Promise<boolean>;
};

export function ChatInput({ agentId, disabled = false, onSend }: ChatInputProps) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const attachments = useAttachments(agentId);

  const done = attachments.items.filter((item) => item.status === 'done' && item.filePath);
  const uploading = attachments.items.some((item) => item.status === 'uploading');
  const canSend = !disabled && !sending && !uploading && (text.trim() !== '' || done.length > 0);

  // Grow with the content up to MAX_INPUT_HEIGHT, then scroll.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, MAX_INPUT_HEIGHT)}px`;
  }, [text]);

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!canSend) return;
    const message = text.trim() || FILES_ONLY_TEXT;
    setSending(true);
    try {
      if (await onSend(message, done.map((item) => item.filePath!))) {
        setText('');
        attachments.clearDone();
      }
    } finally {
      setSending(false);
      box.current?.focus();
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // isComposing: Enter that confirms an IME composition must not send.
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  return (
    <form className="chat-input" onSubmit={submit} aria-label="Message">
      <AttachmentList items={attachments.items} onRemove={attachments.remove} onRetry={attachments.retry} />
      {attachments.error && <p className="chat-file-error" role="alert">{attachments.error}</p>}
      <div className="chat-input-row">
        <button type="button" className="icon-button chat-attach" aria-label="Attach files" title="Attach files"
          disabled={disabled || !(agentId > 0)} onClick={() => picker.current?.click()}>
          <PaperclipIcon />
        </button>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          aria-label="Choose files"
          onChange={(e) => {
            attachments.add(Array.from(e.currentTarget.files ?? []));
            e.currentTarget.value = ''; // picking the same file again fires change again
          }}
        />
        <textarea
          ref={box}
          className="chat-textarea"
          rows={1}
          aria-label="Message text"
          placeholder={disabled ? 'Input disabled for now' : 'Write anything...'}
          disabled={disabled}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <button type="submit" className="chat-send" aria-label="Send" title="Send" disabled={!canSend}>
          <SendIcon size={17} />
        </button>
      </div>
    </form>
  );
}
