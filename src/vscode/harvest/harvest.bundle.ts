// The entry of dist/harvest.js (esbuild.js): the harvest engine with ajv and the MDS schemas it validates
// with, a bundle of its own that Fetch Hours loads on first use (src/vscode/harvest/fetchHours.ts), so that
// activation loads none of it. Each bundle has its own copy of @vscode/l10n: this one is configured as it loads.
import { configureHostL10n } from '../panel/l10nBundle';

configureHostL10n();

export { harvestHours, harvestSnapshot, hoursOf } from '../../core/harvest';
