import { afterAll } from 'vitest';
import { stopStrayProcesses } from './children.js';

// Every test file: whatever processes it started are stopped when it ends, passed or not.
afterAll(stopStrayProcesses);
