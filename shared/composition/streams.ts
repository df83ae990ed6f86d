import { ParkedRecords } from '../domain/streams/parked-records';
import { repository, type Services } from '../services';
import { ParkedRecordRepository } from '../persistence/parked-record-repository';

export const parkedRecords = (s: Services) => s.once('parkedRecords', () => new ParkedRecords(repository(s, ParkedRecordRepository)));
