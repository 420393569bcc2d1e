// A hash that names no view.
export function NotFoundView() {
  return (
    <section aria-labelledby="missing-h">
      <h1 id="missing-h">Not found</h1>
      <p>
        This page does not exist. <a href="#/">Go to the sessions</a>.
      </p>
    </section>
  );
}
