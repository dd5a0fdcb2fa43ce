import type * as vscode from 'vscode';

/**
 * Owns disposables (listeners, emitters, registrations): whatever a subclass `register`s is
 * disposed once, the last registered first, when the owner is disposed. Registering on an owner
 * that is already disposed disposes the newcomer at once, so nothing outlives its owner.
 * After vscode-pull-request-github's `src/common/lifecycle.ts`.
 */
export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposed = false;

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  protected register<T extends vscode.Disposable>(disposable: T): T {
    if (this.disposed) disposable.dispose();
    else this.owned.push(disposable);
    return disposable;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.owned.splice(0).reverse()) d.dispose();
  }
}
