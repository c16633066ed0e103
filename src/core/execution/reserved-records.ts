/**
 * The executions whose Idempotency-Key this process has reserved but whose record it has
 * neither stored nor given up yet (its reservation withdrawn). For that moment (one commit,
 * milliseconds) the key names an execution that no read finds: a repeat in this process
 * waits for the moment to pass (`settled`), and is then answered as one arriving a moment
 * later would be: a 409 naming a record that `GET /v1/executions/{id}` finds, the record
 * itself, or a run of its own once the key is free again.
 */
export class ReservedRecords {
  private readonly unsettled = new Map<string, Promise<void>>();

  /**
   * Marks `executionId` unsettled, before its reservation is made; the function returned
   * settles it (once its record is stored, or its reservation withdrawn or never made) and
   * may be called again without effect.
   */
  hold(executionId: string): () => void {
    let resolve = () => {};
    const settled = new Promise<void>((done) => {
      resolve = done;
    });
    this.unsettled.set(executionId, settled);
    return () => {
      if (this.unsettled.get(executionId) === settled) this.unsettled.delete(executionId);
      resolve();
    };
  }

  /**
   * Resolves once the record of `executionId` is stored or its reservation withdrawn;
   * undefined when this process holds no such moment (settled already, or another
   * process's execution).
   */
  settled(executionId: string): Promise<void> | undefined {
    return this.unsettled.get(executionId);
  }
}
