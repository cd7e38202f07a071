// A model response made readable: thinking, text and tool_use items of `response.content` in order,
// each labelled; unknown item types fall back to their JSON. Used by the panel rows and the modal.
import type { TraceResponse } from '../lib/traces-api.ts';
import { NO_DATA, prettyJson } from './trace-format.ts';

type Item = NonNullable<TraceResponse['content']>[number];

export function TraceContent({ response }: { response: TraceResponse | null | undefined }) {
  const items = Array.isArray(response?.content) ? response.content : [];
  if (items.length === 0) return <p className="trace-content-empty muted">{NO_DATA}</p>;
  return (
    <ol className="trace-content">
      {items.map((item, index) => (
        <li key={index} className="trace-item" data-type={item.type}>
          <ContentItem item={item} />
        </li>
      ))}
    </ol>
  );
}

function ContentItem({ item }: { item: Item }) {
  if (item.type === 'thinking' && typeof item.thinking === 'string') {
    return (
      <>
        <span className="trace-item-label">Thinking</span>
        <p className="trace-item-text trace-item-thinking">{item.thinking || NO_DATA}</p>
      </>
    );
  }
  if (item.type === 'text' && typeof item.text === 'string') {
    return (
      <>
        <span className="trace-item-label">Text</span>
        <p className="trace-item-text">{item.text || NO_DATA}</p>
      </>
    );
  }
  if (item.type === 'tool_use') {
    return (
      <>
        <span className="trace-item-label">
          Tool use: <code className="trace-item-tool">{typeof item.name === 'string' ? item.name : NO_DATA}</code>
        </span>
        <pre className="trace-json">{prettyJson(item.input)}</pre>
      </>
    );
  }
  return (
    <>
      <span className="trace-item-label">{String(item.type || 'item')}</span>
      <pre className="trace-json">{prettyJson(item)}</pre>
    </>
  );
}
