import { render } from 'preact';
import { loadConfig } from './api';
import { App } from './app';
import './styles.css';

void loadConfig().then(
  () => render(<App />, document.getElementById('app')!),
  (error: unknown) => render(<p role="alert">config.json could not be read: {String(error)}</p>, document.getElementById('app')!),
);
