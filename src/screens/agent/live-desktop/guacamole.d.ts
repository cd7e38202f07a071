// Types for the parts of guacamole-common-js 1.5.0 this folder and the replay (SessionRecording) use. The npm package has no types and
// only a default export (the Guacamole namespace object): `import Guacamole from 'guacamole-common-js'`.
// `import * as Guacamole` type-checks with other typings but is undefined at run time.
declare module 'guacamole-common-js' {
  namespace Guacamole {
    class Status {
      constructor(code: number, message?: string);
      code: number;
      message?: string;
      isError(): boolean;
    }

    class Tunnel {
      /** Tunnel.State: CONNECTING 0, OPEN 1, CLOSED 2 (a new tunnel's), UNSTABLE 3. */
      state: number;
      uuid: string | null;
      receiveTimeout: number;
      unstableThreshold: number;
      onerror: ((status: Status) => void) | null;
      onstatechange: ((state: number) => void) | null;
      onuuid: ((uuid: string) => void) | null;
      oninstruction: ((opcode: string, args: string[]) => void) | null;
      sendMessage(...elements: unknown[]): void;
      /** Instance properties: a tunnel made with `new Tunnel()` may replace them. */
      connect: (data?: string) => void;
      disconnect: () => void;
      /** Sets `state`, calling onstatechange when it changed. */
      setState(state: number): void;
    }

    /** Reads instructions out of text received in pieces of any size. */
    class Parser {
      oninstruction: ((opcode: string, args: string[]) => void) | null;
      /** Throws on text that is not Guacamole instructions. */
      receive(packet: string): void;
    }

    class WebSocketTunnel extends Tunnel {
      constructor(url: string);
    }

    class InputStream {
      index: number;
      onblob: ((data: string) => void) | null;
      onend: (() => void) | null;
    }

    class OutputStream {
      index: number;
      onack: ((status: Status) => void) | null;
    }

    class ArrayBufferWriter {
      constructor(stream: OutputStream);
      sendData(data: ArrayBuffer | ArrayBufferView): void;
      sendEnd(): void;
    }

    class BlobReader {
      constructor(stream: InputStream, mimetype: string);
      onend: (() => void) | null;
      getBlob(): Blob;
    }

    class DataURIReader {
      constructor(stream: InputStream, mimetype: string);
      onend: (() => void) | null;
      getURI(): string;
    }

    /** A layer of the display; only passed through here. */
    class Layer {
      width: number;
      height: number;
      /** Whether a draw beyond its size grows it. */
      autosize: boolean;
      getCanvas(): HTMLCanvasElement;
      resize(width: number, height: number): void;
      /** What a display's drawImage task calls (an instance property: replaceable per layer). */
      drawImage(x: number, y: number, image: CanvasImageSource): void;
    }

    class Display {
      getElement(): HTMLElement;
      getDefaultLayer(): Layer;
      /** Queues drawing an image, which must have loaded by the time its frame is flushed. */
      drawImage(layer: Layer, x: number, y: number, image: CanvasImageSource): void;
      /** Called for each `img` stream; replaceable per display. */
      drawStream(layer: Layer, x: number, y: number, stream: InputStream, mimetype: string): void;
      /** Closes the queued operations into a frame, drawn when ready; `callback` after (the sync answer). */
      flush(callback?: () => void, timestamp?: number, logicalFrames?: number): void;
      getWidth(): number;
      getHeight(): number;
      getScale(): number;
      scale(scale: number): void;
      showCursor(shown: boolean): void;
      /** A new canvas with every layer composited at the display's real size (the replay's video export). */
      flatten(): HTMLCanvasElement;
      onresize: ((width: number, height: number) => void) | null;
    }

    class AudioPlayer {
      /** A player that reads the stream (it takes the stream's onblob); null for a type it cannot play. */
      static getInstance(stream: InputStream, mimetype: string): AudioPlayer | null;
    }

    namespace AudioContextFactory {
      /** The one AudioContext the library's audio players share (null where Web Audio is missing). */
      function getAudioContext(): AudioContext | null;
      /** That AudioContext once getAudioContext made it; null before. */
      let singleton: AudioContext | null;
    }

    /**
     * A session recording played into a display of its own (the replay, src/screens/replay). 1.5.0 plays at 1×
     * only; the replay drives seek() from a clock of its own instead of play(). A seek replays frames from the
     * nearest keyframe it has already passed once (it snapshots the display every 5 s and 16 K characters).
     */
    class SessionRecording {
      /**
       * A Blob source does not play in 1.5.0 (the constructor never keeps the blob and throws reading its size);
       * a tunnel's instructions are kept in a Blob of the library's own, grown 256 K characters at a time.
       */
      constructor(source: Tunnel);
      /** Connects the tunnel (reading starts). */
      connect(data?: string): void;
      getDisplay(): Display;
      /** ms of the last frame parsed so far, from the first frame's. */
      getDuration(): number;
      /** ms of the frame shown, from the first frame's. */
      getPosition(): number;
      isPlaying(): boolean;
      play(): void;
      pause(): void;
      /** Asynchronous: `callback` runs once the frame nearest `position` is replayed, or the seek was cancelled. */
      seek(position: number, callback?: () => void): void;
      /** Ends the seek under way (its callback runs). */
      cancel(): void;
      /** Stops parsing the blob. */
      abort(): void;
      onload: (() => void) | null;
      onerror: ((message: string) => void) | null;
      onprogress: ((duration: number, parsedSize: number) => void) | null;
      onseek: ((position: number, current: number, total: number) => void) | null;
      onplay: (() => void) | null;
      onpause: (() => void) | null;
    }

    class Client {
      constructor(tunnel: Tunnel);
      connect(data?: string): void;
      disconnect(): void;
      getDisplay(): Display;
      sendKeyEvent(pressed: 0 | 1 | boolean, keysym: number): void;
      sendMouseState(state: Mouse.State, applyDisplayScale?: boolean): void;
      createClipboardStream(mimetype: string): OutputStream;
      onstatechange: ((state: number) => void) | null;
      onerror: ((status: Status) => void) | null;
      onclipboard: ((stream: InputStream, mimetype: string) => void) | null;
      onname: ((name: string) => void) | null;
      onaudio: ((stream: InputStream, mimetype: string) => unknown) | null;
    }

    namespace Keyboard {
      class ModifierState {
        alt: boolean;
        shift: boolean;
        ctrl: boolean;
        meta: boolean;
        hyper: boolean;
        static fromKeyboardEvent(event: KeyboardEvent): ModifierState;
      }
    }

    class Keyboard {
      constructor(element?: Element | Document);
      onkeydown: ((keysym: number) => boolean | void) | null;
      onkeyup: ((keysym: number) => void) | null;
      /** The modifiers as the keyboard last synced them with a key event. */
      modifiers: Keyboard.ModifierState;
      /** Presses a key (once: a pressed key stays pressed until released) and returns whether to let its default action happen. */
      press(keysym: number): boolean;
      reset(): void;
    }

    namespace Mouse {
      class State {
        x: number;
        y: number;
        left: boolean;
        middle: boolean;
        right: boolean;
        up: boolean;
        down: boolean;
      }
      class Event {
        state: State;
      }
    }

    class Mouse {
      constructor(element: Element);
      onEach(types: string[], listener: (event: Mouse.Event) => void): void;
    }
  }

  export default Guacamole;
}
