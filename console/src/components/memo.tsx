// A component that renders again only when `same` says its props changed: in a session of
// thousands of calls, an event re-renders the turn and the call it is about, not every one.
// (Preact's own `memo` lives in preact/compat, which this page does not otherwise need.)
import { Component, type ComponentType } from 'preact';

export function memoized<P extends object>(Inner: ComponentType<P>, same: (before: P, after: P) => boolean): ComponentType<P> {
  return class Memoized extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      return !same(this.props as P, next);
    }
    override render() {
      return <Inner {...(this.props as P)} />;
    }
  };
}
