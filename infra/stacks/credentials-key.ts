import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { CredentialsAccess } from '../../shared/contract/functions';

/**
 * Least privilege on the credentials key: decrypt for the functions that read credentials, data-key
 * generation as well for the one that writes them, nothing for the others. The key's id reaches them as
 * WEIR_KMS_KEY_ID.
 */
export function grantCredentials(fn: NodejsFunction, key: IKey | undefined, access: CredentialsAccess | undefined): void {
  if (!key || !access) return;
  fn.addEnvironment('WEIR_KMS_KEY_ID', key.keyArn);
  if (access === 'write') key.grant(fn as IFunction, 'kms:GenerateDataKey', 'kms:Decrypt');
  else key.grantDecrypt(fn);
}
