import type { DynamoDBStreamEvent } from 'aws-lambda';
import { Regulation } from '../../shared/domain/regulations/schemas';
import { eachNewImage } from '../../shared/streams/consumer-loop';
import { deletionRunner, forgetInSchemas } from '../../shared/composition/deletions';
import { ParkedRecordRepository } from '../../shared/persistence/parked-record-repository';
import { repository, services } from '../../shared/services';

const runner = deletionRunner(services());
const forget = forgetInSchemas(services());
const parked = repository(services(), ParkedRecordRepository);

/**
 * Regulation stream records (filtered to regulation items): a new suppress_with_delete starts its deletion
 * jobs and removes the user from Weir's event schemas; a cancel stops the jobs still waiting. Both are idempotent, so a redelivered record changes
 * nothing twice. Failed records are reported for retry (partial batch failure).
 */
export const handler = (event: DynamoDBStreamEvent) =>
  eachNewImage(
    event,
    'regulationProcessor',
    async (item, record) => {
      const regulation = Regulation.parse(item);
      if (regulation.regulationType !== 'suppress_with_delete') return;
      if (record.eventName === 'INSERT') {
        await runner.start(regulation);
        await forget(regulation);
      } else if (record.eventName === 'MODIFY' && regulation.canceled) await runner.cancel(regulation);
    },
    { parked },
  );
