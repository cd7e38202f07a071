// One thread step in the message list: the user's words and files, the model's reasoning, its answer
// (Markdown, rendered safely by MarkdownView) and its tool calls; on a run's first step, "Watch replay".
import { Link } from '../../../lib/router.ts';
import type { Step } from '../../../lib/types.ts';
import { MarkdownView } from '../../../ui/markdown-view.tsx';
import { FileIcon, PlayIcon } from '../../../ui/icons.tsx';
import { visibleToolCalls } from './steps.ts';
import { ToolCallGroup } from './tool-call-group.tsx';
import { parseHandback } from '../supervision/handback.ts';
import { HandbackItem } from '../supervision/handback-item.tsx';

export const fileName = (path: string) => path.split(/[\\/]/).filter(Boolean).pop() ?? path;

/** A recording's summary (server/recording): the text inside its <video_call_summary> tag, else null. */
export function demonstrationSummary(text: string): string | null {
  const m = /^\s*<video_call_summary>\n?([\s\S]*?)\n?<\/video_call_summary>\s*$/.exec(text);
  return m ? m[1] : null;
}

type StepViewProps = {
  step: Step;
  /** This step holds the newest tool-call group: it opens by itself. */
  latestGroup: boolean;
  threadRunning: boolean;
  /** The user's choice for this step's group; null follows the automatic rule. */
  groupOpen: boolean | null;
  onToggleGroup: (open: boolean) => void;
  /** The run this step starts, when it has a replay. */
  replayRunId?: number | null;
};

export function StepView({ step, latestGroup, threadRunning, groupOpen, onToggleGroup, replayRunId = null }: StepViewProps) {
  const calls = visibleToolCalls(step);
  const files = step.user_files ?? [];
  const open = groupOpen ?? latestGroup;
  const handback = step.user_text ? parseHandback(step.user_text) : null;
  const summary = step.user_text && !handback ? demonstrationSummary(step.user_text) : null;
  return (
    <li className="step" data-sequence={step.sequence}>
      {replayRunId !== null && (
        <Link className="step-replay" href={`/replay/${replayRunId}`}>
          <PlayIcon size={12} /> Watch replay
        </Link>
      )}
      {handback && <HandbackItem handback={handback} />}
      {summary !== null && (
        <div className="message message-demonstration">
          <p className="message-demonstration-title">Demonstration</p>
          <p className="message-text">{summary}</p>
        </div>
      )}
      {summary === null && !handback && (step.user_text || files.length > 0) && (
        <div className="message message-user">
          {step.user_text && <p className="message-text">{step.user_text}</p>}
          {files.length > 0 && (
            <ul className="message-files" aria-label="Attached files">
              {files.map((path) => (
                <li key={path} className="message-file" title={path}>
                  <FileIcon size={14} />
                  <span>{fileName(path)}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {step.reasoning_text && (
        <div className="message message-reasoning">
          <p className="message-text">{step.reasoning_text}</p>
        </div>
      )}
      {step.assistant_text && <MarkdownView className="message message-assistant" source={step.assistant_text} />}
      {calls.length > 0 && (
        <ToolCallGroup calls={calls} active={threadRunning && latestGroup} open={open} onToggle={() => onToggleGroup(!open)} />
      )}
    </li>
  );
}
