// Control mode kept in session storage per agent (issue 19): a reload of the page in control asks for control
// again at once. The server keeps control as the person's lease for 30 s after their viewer's tunnel ended, so the
// agent is not stopped again and the take-over goes on, without being handed back in between.
export const controlKey = (agentId: number) => `control_mode_${agentId}`;

export function storedControl(agentId: number): boolean {
  try {
    return sessionStorage.getItem(controlKey(agentId)) === 'true';
  } catch {
    return false;
  }
}

export function storeControl(agentId: number, control: boolean): void {
  try {
    if (control) sessionStorage.setItem(controlKey(agentId), 'true');
    else sessionStorage.removeItem(controlKey(agentId));
  } catch {
    // Storage refused: control still works, only a reload forgets it.
  }
}
