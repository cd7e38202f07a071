// The desktop area's errors. DesktopUnavailable: no desktop can be had (none installed, turned off, too
// many running, shutting down); the API answers it with 503 and its message. ActionError: a computer
// action the model asked for is malformed (the runner reports it back to the model).

export class DesktopUnavailable extends Error {
  override name = 'DesktopUnavailable';
}

/** Every desktop this server may run is busy (a viewer or a run uses it): a run waits for one rather than fails. */
export class DesktopsFull extends DesktopUnavailable {
  override name = 'DesktopsFull';
}

export class ActionError extends Error {
  override name = 'ActionError';
}
