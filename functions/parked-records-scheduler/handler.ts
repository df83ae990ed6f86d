import { parkedRecords } from '../../shared/composition/streams';
import { services } from '../../shared/services';

const parked = parkedRecords(services());

/** Runs on a schedule: parked stream records that are due go back to their consumer. */
export const handler = async (): Promise<{ replayed: number }> => ({ replayed: await parked.replayDue() });
