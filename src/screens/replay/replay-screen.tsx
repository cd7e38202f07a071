// The Replay screen (issue 44): /replay/{runId} inside the signed-in shell, and /replay/shared/{token}, a page of
// its own that needs no sign-in (app.tsx renders it before the sign-in gate). Both load the replay's JSON and
// show it with ReplayView; they differ in how they ask, what their errors say, and the page around them.
import { useCallback, useMemo, useState } from 'react';
import type { ApiError } from '../../lib/http.ts';
import { replayFetcher, replayPath, type Replay, type ReplaySource } from '../../lib/replay-api.ts';
import { Link } from '../../lib/router.ts';
import { useTitle } from '../../lib/title.tsx';
import { useResource } from '../../lib/use-resource.ts';
import { AppLogo } from '../../ui/icons.tsx';
import { Spinner } from '../../ui/spinner.tsx';
import { createRecordingPlayer, type CreatePlayer } from './recording-player.ts';
import { replayTitle } from './replay-header.tsx';
import { ReplayView } from './replay-view.tsx';
import type { Frames } from './use-playback.ts';

export const RUN_NOT_FOUND = 'Run not found';
export const LINK_GONE = 'This replay link was revoked or does not exist.';
export const LINK_EXPIRED = 'This replay link has expired.';

/** Tests give a player that needs no canvas, and frames they move by hand. */
type TestSeams = { createPlayer?: CreatePlayer; frames?: Frames };

export default function ReplayScreen({ runId, ...seams }: { runId: number } & TestSeams) {
  const source = useMemo<ReplaySource>(() => ({ kind: 'run', runId }), [runId]);
  return <ReplayPage source={source} {...seams} />;
}

export function SharedReplayScreen({ token, ...seams }: { token: string } & TestSeams) {
  const source = useMemo<ReplaySource>(() => ({ kind: 'shared', token }), [token]);
  return (
    <div className="replay-public">
      <div className="replay-public-brand">
        <AppLogo size={24} />
        <span>Agent Workspace</span>
      </div>
      <main className="replay-public-main">
        <ReplayPage source={source} {...seams} />
      </main>
    </div>
  );
}

function ReplayPage({ source, createPlayer = createRecordingPlayer, frames }: { source: ReplaySource } & TestSeams) {
  const { data, error, mutate } = useResource<Replay>(replayPath(source), {
    fetcher: replayFetcher<Replay>(source),
    revalidateOnFocus: false,
  });
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => {
    void mutate();
    setGeneration((n) => n + 1);
  }, [mutate]);
  useTitle(data ? `Replay: ${replayTitle(data)}` : 'Replay');

  if (error && !data) return <ReplayError source={source} error={error} />;
  if (!data) return <div className="page-message"><Spinner label="Loading replay" /></div>;
  return (
    <ReplayView
      key={data.run_id}
      source={source}
      replay={data}
      onReload={reload}
      generation={generation}
      createPlayer={createPlayer}
      frames={frames}
    />
  );
}

function ReplayError({ source, error }: { source: ReplaySource; error: ApiError }) {
  if (source.kind === 'shared') {
    const text = error.status_code === 410 ? LINK_EXPIRED : error.status_code === 404 ? LINK_GONE : `Error loading replay: ${error.detail}`;
    return <p className="page-message error-text" role="alert">{text}</p>;
  }
  if (error.status_code === 404) {
    return (
      <div className="page-message">
        <p className="error-text" role="alert">{RUN_NOT_FOUND}</p>
        <Link href="/">Go to Your Agents</Link>
      </div>
    );
  }
  return <p className="page-message error-text" role="alert">Error loading replay: {error.detail}</p>;
}
