// The console's entry: the stylesheet (bundled into its own file) and the app.
import { render } from 'preact';
import { App } from './app';
import './styles.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
