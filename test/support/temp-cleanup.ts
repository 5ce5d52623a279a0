// A setup file of every vitest project: registered first, this afterAll runs last in each test
// file, so a file's temp dirs (temp-dirs.ts) go once whatever ran in them has been stopped.
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dirs.ts';

afterAll(removeTempDirs);
