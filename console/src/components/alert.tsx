// Errors and notices for people: an error is always shown (role="alert"), never swallowed.
import type { ComponentChildren } from 'preact';

export function ErrorAlert({ message, children }: { message: string | null; children?: ComponentChildren }) {
  if (!message) return null;
  return (
    <div class="alert" role="alert">
      <p>
        <strong>Error:</strong> {message}
      </p>
      {children}
    </div>
  );
}
