// notes.md in the agent editor: the text area, or the note rendered as (sanitised) Markdown.
import { useState } from 'react';
import { MarkdownView } from '../../../ui/markdown-view.tsx';

type NotesEditorProps = {
  value: string;
  onChange: (value: string) => void;
  label: string;
};

export function NotesEditor({ value, onChange, label }: NotesEditorProps) {
  const [preview, setPreview] = useState(false);
  return (
    <div className="notes-editor">
      <div className="segmented" role="group" aria-label="notes.md view">
        <button type="button" className="segmented-option" aria-pressed={!preview} onClick={() => setPreview(false)}>Edit</button>
        <button type="button" className="segmented-option" aria-pressed={preview} onClick={() => setPreview(true)}>Preview</button>
      </div>
      {preview ? (
        <div className="editor-preview" aria-label="notes.md preview" role="region">
          {value.trim() ? <MarkdownView source={value} /> : <p className="muted">Nothing to preview</p>}
        </div>
      ) : (
        <textarea className="editor-textarea" aria-label={label} value={value} onChange={(e) => onChange(e.target.value)} spellCheck={false} />
      )}
    </div>
  );
}
