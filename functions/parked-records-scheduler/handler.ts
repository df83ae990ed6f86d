import { services } from '../../shared/services';

const { parkedRecords: parked } = services();

/** Runs on a schedule: parked stream records that are due go back to their consumer. */
export const handler = async (): Promise<{ replayed: number }> => ({ replayed: await parked.replayDue() });
