import { ParkedRecords } from '../../shared/domain/streams/parked-records';
import { ParkedRecordRepository } from '../../shared/persistence/parked-record-repository';
import { getStore } from '../../shared/persistence/store';

const parked = new ParkedRecords(new ParkedRecordRepository(getStore()));

/** Runs on a schedule: parked stream records that are due go back to their consumer. */
export const handler = async (): Promise<{ replayed: number }> => ({ replayed: await parked.replayDue() });
